/**
 * The `simulate` report as one self-contained HTML page (replay.md §8): the assumption, a chart of
 * cost per scenario (Vega-Lite, rendered to inline SVG), the totals and one table per session
 * with its fidelity and flags. Every string that comes from a log (session ids, models, notes) is
 * escaped; the page loads nothing from the network.
 */
import type { TopLevelSpec } from 'vega-lite';
import { renderSvg } from './svg-chart.js';
import type { ScenarioResult, SimulateReport, UsageTotals } from './simulate-report.js';

/** Text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;'));
}

function tokens(value: number): string {
  return value.toLocaleString('en-US');
}

function usd(value: number | null): string {
  if (value === null) return 'unpriced';
  const magnitude = Math.abs(value);
  return `${value < 0 ? '-' : ''}$${magnitude.toFixed(magnitude >= 100 ? 0 : magnitude >= 1 ? 2 : 4)}`;
}

function pct(value: number | null): string {
  return value === null ? '–' : `${value.toFixed(1)}%`;
}

function usageCells(u: UsageTotals): string {
  return [u.promptTokens, u.cacheReadTokens, u.cacheWriteTokens, u.uncachedInputTokens, u.outputTokens].map((n) => `<td>${tokens(n)}</td>`).join('') + `<td>${usd(u.costUsd)}</td>`;
}

function resultRow(r: ScenarioResult): string {
  const saving = r.scenario === 'recorded' ? '<td></td><td></td>' : `<td>${usd(r.savingVsRecorded.costUsd)}</td><td>${pct(r.savingVsRecorded.pct)}</td>`;
  return `<tr><th>${escapeHtml(r.scenario)}</th>${usageCells(r)}${saving}<td>${r.compactions}${r.blockedCompactions > 0 ? ` (+${r.blockedCompactions} blocked)` : ''}</td><td>${r.overflows}</td><td>${r.failedTurns}</td><td>${escapeHtml(r.flags.join(', '))}</td></tr>`;
}

function table(bill: UsageTotals & { readonly requests: number }, results: readonly ScenarioResult[]): string {
  const head = '<tr><th>scenario</th><th>prompt</th><th>cache read</th><th>cache write</th><th>uncached</th><th>output</th><th>cost</th><th>saved USD</th><th>saved</th><th>compactions</th><th>overflows</th><th>failed turns</th><th>flags</th></tr>';
  const billRow = bill.requests === 0 ? '<tr><th>bill (measured)</th><td colspan="12">no measured usage in the log</td></tr>' : `<tr class="bill"><th>bill (measured)</th>${usageCells(bill)}<td colspan="6"></td></tr>`;
  return `<table>${head}${billRow}${results.map(resultRow).join('')}</table>`;
}

/** Cost per scenario over all sessions, the bill as a rule: what the page leads with. */
export function costChartSpec(report: SimulateReport): TopLevelSpec {
  const values = report.totals.results.filter((r) => r.costUsd !== null).map((r) => ({ scenario: r.scenario, costUsd: r.costUsd }));
  const layers: NonNullable<Extract<TopLevelSpec, { layer: unknown }>['layer']> = [
    {
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'scenario', type: 'nominal', sort: null, title: null },
        x: { field: 'costUsd', type: 'quantitative', title: 'cost (USD)', axis: { format: '$,.2f' } },
      },
    },
  ];
  const bill = report.totals.recorded.costUsd;
  if (bill !== null) {
    layers.push({ data: { values: [{ bill }] }, mark: { type: 'rule', color: '#c0392b', strokeDash: [4, 3] }, encoding: { x: { field: 'bill', type: 'quantitative' } } });
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: `Cost per scenario over ${report.totals.sessions} session${report.totals.sessions === 1 ? '' : 's'}`, subtitle: bill === null ? '' : `dashed: the bill (${usd(bill)})` },
    width: 640,
    data: { values },
    layer: layers,
  };
}

/** The whole page. */
export async function renderSimulateHtml(report: SimulateReport): Promise<string> {
  const chart = report.totals.results.some((r) => r.costUsd !== null) ? await renderSvg(costChartSpec(report)) : '';
  const sessions = report.sessions
    .map((s) => {
      const f = s.fidelity;
      return `<section><h2>${escapeHtml(s.sessionId)}</h2><p>${escapeHtml(s.source)}, ${escapeHtml(s.model)}; recorded policy: ${escapeHtml(s.recordedPolicy)}; fidelity of the recorded replay: prompt tokens ${pct(f.promptTokensErrorPct)}, cost ${pct(f.costErrorPct)}, median request ${pct(f.medianRequestErrorPct)}${f.note === null ? '' : ` (${escapeHtml(f.note)})`}</p>${table(s.recorded, s.results)}</section>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cachecost simulate</title>
<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:right}th:first-child,td:last-child{text-align:left}tr.bill{background:#f6f6f6}p.assumption{color:#555}</style>
</head><body>
<h1>cachecost simulate</h1>
<p class="assumption">${escapeHtml(report.assumption)}</p>
${chart}
<h2>All sessions</h2>
${table(report.totals.recorded, report.totals.results)}
${sessions}
<p>Savings are against the simulated <code>recorded</code> scenario; the bill is the log's measured usage, priced. ${report.issues.length} ingest issue${report.issues.length === 1 ? '' : 's'}.</p>
</body></html>
`;
}
