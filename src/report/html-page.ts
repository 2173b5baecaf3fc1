/**
 * The shell of every HTML report: one self-contained page (inline CSS, inline SVG charts, one
 * inline script for sorting and drill-down), loading nothing from the network. A Content Security
 * Policy allows only that script, by its hash, so text from a log can never run even if a
 * renderer forgot to escape it; every log string is escaped anyway (`escapeHtml`).
 */
import { createHash } from 'node:crypto';

/** Text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;',
  );
}

/** Where a report comes from, printed at the foot of the page. */
export type Provenance = {
  readonly version: string;
  /** ISO-8601 time of generation; null leaves it out (reproducible output). */
  readonly generatedAt: string | null;
  readonly command: string;
  readonly inputs: readonly string[];
  readonly priceTable: string;
};

const STYLE = `
:root{--fg:#1d2328;--muted:#5b6670;--line:#dde2e6;--bg-alt:#f5f7f8;--bad:#b3261e;--good:#1e6b35;--warn:#8a5a00}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;color:var(--fg);margin:0 auto;max-width:1180px;padding:1.5em 2em 4em}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:1px solid var(--line);padding-bottom:.2em}
h3{font-size:1.05em;margin:1.2em 0 .3em}p.muted,.muted{color:var(--muted)}
nav.toc{background:var(--bg-alt);border:1px solid var(--line);border-radius:6px;padding:.6em 1em;margin:1em 0}
nav.toc ol{margin:.2em 0;padding-left:1.4em;columns:2;column-gap:2em}nav.toc li{break-inside:avoid}
table{border-collapse:collapse;margin:.4em 0 1em;font-variant-numeric:tabular-nums}
th,td{padding:.3em .6em;border-bottom:1px solid var(--line);text-align:right;vertical-align:top}
th:first-child,td:first-child,td.text,th.text{text-align:left}
thead th{background:var(--bg-alt);position:sticky;top:0}
table.sortable thead th{cursor:pointer;user-select:none;white-space:nowrap}
table.sortable thead th[aria-sort=ascending]::after{content:" \\25B2"}table.sortable thead th[aria-sort=descending]::after{content:" \\25BC"}
tr.bill{background:var(--bg-alt)}.neg{color:var(--bad)}.pos{color:var(--good)}.warn{color:var(--warn)}
.sev-critical{color:var(--bad);font-weight:600}.sev-warning{color:var(--warn);font-weight:600}
details.session{border:1px solid var(--line);border-radius:6px;margin:.8em 0;padding:.3em .9em}
details.session>summary{cursor:pointer;font-weight:600;padding:.3em 0}
details.session[open]>summary{border-bottom:1px solid var(--line);margin-bottom:.5em}
figure.chart{margin:.5em 0 1em;overflow-x:auto}figure.chart figcaption{color:var(--muted);font-size:.9em}
dl.evidence{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;margin:.3em 0 .8em 1em}dl.evidence dt{color:var(--muted)}dl.evidence dd{margin:0}
footer{margin-top:3em;border-top:1px solid var(--line);padding-top:.8em;color:var(--muted);font-size:.9em}
code{font-size:.95em}`;

/** Sorting of `table.sortable` by clicking a header (numbers by `data-v`), and opening the drill-down a link points at. */
const SCRIPT = `(function(){
function val(td,num){var v=td.getAttribute('data-v');if(v===null)v=td.textContent;return num?(v===''?-Infinity:Number(v)):v.toLowerCase();}
document.querySelectorAll('table.sortable').forEach(function(table){
var heads=table.querySelectorAll('thead th');
heads.forEach(function(th,col){th.tabIndex=0;function sort(){
var num=th.getAttribute('data-type')==='num';var asc=th.getAttribute('aria-sort')!=='ascending';
heads.forEach(function(h){h.removeAttribute('aria-sort');});th.setAttribute('aria-sort',asc?'ascending':'descending');
var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=val(a.cells[col],num),y=val(b.cells[col],num);return (x<y?-1:x>y?1:0)*(asc?1:-1);});
rows.forEach(function(r){body.appendChild(r);});}
th.addEventListener('click',sort);th.addEventListener('keydown',function(e){if(e.key==='Enter')sort();});});});
function openTarget(){var id=decodeURIComponent(location.hash.slice(1));if(!id)return;var el=document.getElementById(id);
if(el&&el.tagName==='DETAILS'){el.open=true;el.scrollIntoView();}}
window.addEventListener('hashchange',openTarget);openTarget();
})();`;

function scriptHash(script: string): string {
  return `'sha256-${createHash('sha256').update(script, 'utf8').digest('base64')}'`;
}

function provenanceFooter(p: Provenance): string {
  const generated =
    p.generatedAt === null
      ? ''
      : `<span data-generated>generated <time datetime="${escapeHtml(p.generatedAt)}">${escapeHtml(p.generatedAt)}</time> · </span>`;
  return `<footer id="provenance"><p>${generated}cachecost ${escapeHtml(p.version)} · command <code>${escapeHtml(p.command)}</code></p>
<p>inputs: ${p.inputs.map((input) => `<code>${escapeHtml(input)}</code>`).join(', ')} · prices: ${escapeHtml(p.priceTable)}</p></footer>`;
}

/** A whole page: `title` and `body` are HTML already escaped by the caller. */
export function htmlPage(title: string, body: string, provenance: Provenance): string {
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src ${scriptHash(SCRIPT)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title>
<style>${STYLE}</style>
</head><body>
${body}
${provenanceFooter(provenance)}
<script>${SCRIPT}</script>
</body></html>
`;
}
