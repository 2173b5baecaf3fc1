/**
 * `tune --html <file>`: the tune report as one self-contained page: per main model (and over all
 * sessions when there are several), the cost curve with its knee and the recommended target
 * (`tune-chart.ts`, rendered to inline SVG), the recommendation in words, and the table of every
 * scenario. Every string from a log (model names, session ids) is escaped.
 */
import { formatUsd, INCOMPLETE_MARK } from '../format/money.js';
import { formatCount, formatPct, formatTokens } from '../format/number.js';
import { costPicoUsdOrNull } from '../tune/scenario-totals.js';
import type { TuneGroup, TuneReport } from '../tune/tune-report.js';
import { escapeHtml, htmlPage, type Provenance } from './html-page.js';
import { renderSvg } from './svg-chart.js';
import { tuneChartSpec } from './tune-chart.js';

function money(picoUsd: bigint | null, unpricedRequests: number): string {
  const text = escapeHtml(formatUsd(picoUsd, { incomplete: unpricedRequests > 0 && picoUsd !== null }));
  return unpricedRequests > 0 ? `<span class="warn">${text}</span>` : text;
}

function pointsTable(group: TuneGroup): string {
  const rows = group.points.map((point) => {
    const t = point.totals;
    const recorded = point.scenario.family === 'recorded';
    const saving = point.savingVsRecordedPicoUsd;
    const savingText = recorded
      ? ''
      : saving === null
        ? '–'
        : `<span class="${saving < 0n ? 'neg' : 'pos'}">${escapeHtml(formatUsd(saving))}</span>`;
    const marks: string[] = [];
    if (group.curves.some((curve) => curve.knee?.scenario === point.scenario.name)) marks.push('knee');
    const r = group.recommendation;
    if (r.kind === 'target' && r.point.scenario === point.scenario.name) marks.push('<strong>recommended</strong>');
    const perSession = t.sessions === 0 ? 0 : t.compactions / t.sessions;
    return `<tr><th scope="row" class="text">${escapeHtml(point.scenario.name)}</th><td>${money(point.costPicoUsd, t.unpricedRequests)}</td><td>${savingText}</td><td>${recorded ? '' : escapeHtml(formatPct(point.savingVsRecordedPct))}</td><td>${perSession.toFixed(1)}</td><td>${formatCount(t.blockedCompactions)}</td><td>${formatTokens(t.summarizedAwayTokens)}</td><td>${formatCount(t.rejectedOverflows)}</td><td>${formatCount(t.failedTurns)}</td><td class="text">${marks.join(', ')}</td></tr>`;
  });
  return `<table><thead><tr><th class="text">scenario</th><th>cost</th><th>saved USD</th><th>saved</th><th>compactions / session</th><th>blocked</th><th>summarized away</th><th>overflows</th><th>failed turns</th><th class="text">note</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

async function groupSection(group: TuneGroup, name: string, id: string): Promise<string> {
  const sessions = group.sessionIds.length;
  const title = `${name}: cost against compaction target (${sessions} session${sessions === 1 ? '' : 's'})`;
  const svg = await renderSvg(tuneChartSpec(group, title));
  const bill = group.bill;
  return `<section id="${id}"><h2>${escapeHtml(name)}</h2>
<p>${formatCount(sessions)} session${sessions === 1 ? '' : 's'}; bill ${money(costPicoUsdOrNull(bill), bill.unpricedRequests)} for ${formatCount(bill.requests)} measured requests.</p>
<p><strong>Recommended:</strong> ${escapeHtml(group.recommendation.reason)}</p>
<figure class="chart curve">${svg}<figcaption>Cost of each swept target (lines), the reference scenarios (dashed), the knee of the featured curve and the recommended target (diamond); below, what the cost pays for along that curve.</figcaption></figure>
${pointsTable(group)}</section>`;
}

/** The whole page. */
export async function renderTuneHtml(report: TuneReport, provenance: Provenance): Promise<string> {
  const only = report.models.length === 1 ? report.models[0]?.model : undefined;
  // One curve per main model; with several models, the curve over all sessions as well.
  const groups: { group: TuneGroup; name: string }[] =
    only !== undefined
      ? [{ group: report.overall, name: only ?? 'all models' }]
      : [
          ...report.models.map((g) => ({ group: g, name: g.model ?? '(no model)' })),
          { group: report.overall, name: 'All models' },
        ];
  const sections: string[] = [];
  for (const [i, { group, name }] of groups.entries()) sections.push(await groupSection(group, name, `m-${i + 1}`));
  const toc = groups.map(({ name }, i) => `<li><a href="#m-${i + 1}">${escapeHtml(name)}</a></li>`).join('');
  const body = `<header><h1>cachecost tune</h1><p class="muted">${escapeHtml(report.assumption)}</p></header>
<nav class="toc" aria-label="contents"><strong>Contents</strong><ol>${toc}<li><a href="#method">Method</a></li><li><a href="#provenance">Provenance</a></li></ol></nav>
${sections.join('\n')}
<h2 id="method">Method</h2>
<p>Knee: ${escapeHtml(report.method.knee)}</p><p>Recommendation: ${escapeHtml(report.method.recommendation)}</p>
<p class="muted">Savings are against the simulated <code>recorded</code> scenario. A cost ending in ${INCOMPLETE_MARK} leaves out unpriced requests.</p>`;
  return htmlPage('cachecost tune', body, provenance);
}
