/**
 * The tune report in the terminal: per main model, then over all sessions, one row per scenario
 * (cost, saving against `recorded`, what the target gives up), each curve's knee, and the
 * recommendation with its one-sentence reason. Counts are compact (`1.27M`); exact figures are in
 * `--json` and `--csv`.
 */
import { picoUsdToUsd } from '../cost/money.js';
import { formatKnobValue } from '../tune/recommend.js';
import { costPicoUsdOrNull } from '../tune/scenario-totals.js';
import type { TuneGroup, TunePoint, TuneReport } from '../tune/tune-report.js';
import { formatCompactCount } from '../format/compact-number.js';
import { renderTable } from './table.js';

function money(picoUsd: bigint | null, unpricedRequests: number): string {
  if (picoUsd === null) return 'unpriced';
  const value = picoUsdToUsd(picoUsd);
  const magnitude = Math.abs(value);
  const text = magnitude >= 100 ? magnitude.toFixed(0) : magnitude >= 1 ? magnitude.toFixed(2) : magnitude.toFixed(4);
  return `${value < 0 ? '-' : ''}$${text}${unpricedRequests > 0 ? '+' : ''}`;
}

const COLUMNS = [
  { header: 'scenario', align: 'left' },
  { header: 'cost', align: 'right' },
  { header: 'saved USD', align: 'right' },
  { header: 'saved', align: 'right' },
  { header: 'compactions/session', align: 'right' },
  { header: 'summarized away', align: 'right' },
  { header: 'after compaction', align: 'right' },
  { header: 'overflows', align: 'right' },
  { header: 'failed turns', align: 'right' },
  { header: '', align: 'left' },
] as const;

function marks(group: TuneGroup, point: TunePoint): string {
  const out: string[] = [];
  if (group.curves.some((curve) => curve.knee?.scenario === point.scenario.name)) out.push('knee');
  const r = group.recommendation;
  if (r.kind === 'target' && r.point.scenario === point.scenario.name) out.push('recommended');
  return out.join(', ');
}

function row(group: TuneGroup, point: TunePoint): string[] {
  const t = point.totals;
  const isRecorded = point.scenario.family === 'recorded';
  const perSession = t.sessions === 0 ? 0 : t.compactions / t.sessions;
  return [
    point.scenario.name,
    money(point.costPicoUsd, t.unpricedRequests),
    isRecorded ? '' : point.savingVsRecordedPicoUsd === null ? '-' : money(point.savingVsRecordedPicoUsd, 0),
    isRecorded ? '' : point.savingVsRecordedPct === null ? '-' : `${point.savingVsRecordedPct.toFixed(1)}%`,
    t.blockedCompactions > 0 ? `${perSession.toFixed(1)} (+${t.blockedCompactions} blocked)` : perSession.toFixed(1),
    formatCompactCount(t.summarizedAwayTokens),
    String(t.requestsAfterCompaction),
    String(t.rejectedOverflows),
    String(t.failedTurns),
    marks(group, point),
  ];
}

/** The worst session's recorded-replay error: how far the savings below can be trusted (replay.md §6). */
function fidelityLine(group: TuneGroup): string {
  let worst: { readonly sessionId: string; readonly pct: number } | null = null;
  for (const f of group.fidelity) {
    const pct = f.fidelity.promptTokensErrorPct;
    if (pct !== null && (worst === null || Math.abs(pct) > Math.abs(worst.pct))) worst = { sessionId: f.sessionId, pct };
  }
  if (worst === null) return '  recorded replay fidelity: no measured usage to compare with';
  const sign = worst.pct >= 0 ? '+' : '';
  return `  recorded replay fidelity: prompt tokens ${sign}${worst.pct.toFixed(1)}% against the measured usage in the worst session (${worst.sessionId})`;
}

function groupLines(group: TuneGroup, name: string): string[] {
  const sessions = group.sessionIds.length;
  const bill = group.bill;
  const title = `${name}: ${sessions} session${sessions === 1 ? '' : 's'}`;
  const lines = [`${title} (bill ${money(costPicoUsdOrNull(bill), bill.unpricedRequests)} for ${bill.requests} measured requests)`];
  lines.push(fidelityLine(group));
  lines.push(renderTable({ columns: COLUMNS, rows: group.points.map((point) => row(group, point)) }));
  for (const curve of group.curves) {
    const knee = curve.knee;
    lines.push(
      knee === null
        ? `  knee of ${curve.series}: none (fewer than three points, a flat curve, or unpriced requests)`
        : `  knee of ${curve.series}: ${formatKnobValue(curve.knob, knee.targetTokens)} (${knee.side === 'below' ? 'the curve bends up after it' : 'the curve flattens after it'})`,
    );
  }
  // Several families side by side: each curve's own best, then the one across them.
  const families = new Set(group.curves.map((curve) => curve.family));
  if (families.size > 1) for (const curve of group.curves) lines.push(`  best on ${curve.series}: ${curve.recommendation.reason}`);
  lines.push(`  recommended: ${group.recommendation.reason}`);
  return lines;
}

/** The whole report as terminal text (no trailing newline). */
export function renderTuneReport(report: TuneReport): string {
  const out: string[] = [];
  // With one model the per-model table would repeat the overall one.
  const only = report.models.length === 1 ? report.models[0]?.model : undefined;
  if (only === undefined) for (const group of report.models) out.push(...groupLines(group, group.model ?? ''), '');
  out.push(...groupLines(report.overall, only ?? 'All models'), '');
  out.push('Savings are against the simulated `recorded` scenario (modelling error cancels). "after compaction": requests sent right after a compaction.');
  out.push('A cost ending in + leaves out unpriced requests.');
  out.push(`Knee: ${report.method.knee}`);
  out.push(`Recommendation: ${report.method.recommendation}`);
  out.push(report.assumption);
  return out.join('\n');
}
