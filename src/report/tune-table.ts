/**
 * The tune report in the terminal: per main model, then over all sessions, one row per scenario
 * (cost, saving against `recorded`, what the target gives up), each curve's knee, and the
 * recommendation with its one-sentence reason. Counts are compact (`1.27M`); exact figures are in
 * `--json` and `--csv`.
 */
import { formatUsd, INCOMPLETE_MARK } from '../format/money.js';
import { formatCount, formatPct, formatTokens as formatTokenCount } from '../format/number.js';
import { fitWidth, type Paint, paint as makePaint, PLAIN, type TerminalOptions } from '../format/terminal.js';
import { wrapText } from '../format/wrap.js';
import { formatKnobValue } from '../tune/recommend.js';
import { costPicoUsdOrNull } from '../tune/scenario-totals.js';
import type { TuneGroup, TunePoint, TuneReport } from '../tune/tune-report.js';
import { renderTable, type TableColumn } from './table.js';

function money(picoUsd: bigint | null, unpricedRequests: number, paint?: Paint): string {
  const text = formatUsd(picoUsd, { incomplete: unpricedRequests > 0 && picoUsd !== null });
  return unpricedRequests > 0 && paint !== undefined ? paint.warn(text) : text;
}

const COLUMNS: readonly TableColumn[] = [
  { header: 'scenario', align: 'left' },
  { header: 'cost', align: 'right' },
  { header: 'saved USD', align: 'right' },
  { header: 'saved', align: 'right' },
  { header: 'compactions /session', align: 'right' },
  { header: 'blocked', align: 'right', secondary: true },
  { header: 'summarized away', align: 'right', secondary: true },
  { header: 'after compaction', align: 'right', secondary: true },
  { header: 'overflows', align: 'right', secondary: true },
  { header: 'failed turns', align: 'right', secondary: true },
  { header: 'note', align: 'left' },
];

function marks(group: TuneGroup, point: TunePoint): string {
  const out: string[] = [];
  if (group.curves.some((curve) => curve.knee?.scenario === point.scenario.name)) out.push('knee');
  const r = group.recommendation;
  if (r.kind === 'target' && r.point.scenario === point.scenario.name) out.push('recommended');
  return out.join(', ');
}

function row(group: TuneGroup, point: TunePoint, paint: Paint): string[] {
  const t = point.totals;
  const isRecorded = point.scenario.family === 'recorded';
  const perSession = t.sessions === 0 ? 0 : t.compactions / t.sessions;
  const saving = point.savingVsRecordedPicoUsd;
  return [
    point.scenario.name,
    money(point.costPicoUsd, t.unpricedRequests, paint),
    isRecorded ? '' : saving === null ? '-' : saving < 0n ? paint.bad(formatUsd(saving)) : formatUsd(saving),
    isRecorded ? '' : formatPct(point.savingVsRecordedPct),
    perSession.toFixed(1),
    formatCount(t.blockedCompactions),
    formatTokenCount(t.summarizedAwayTokens),
    formatCount(t.requestsAfterCompaction),
    formatCount(t.rejectedOverflows),
    t.failedTurns > 0 ? paint.bad(formatCount(t.failedTurns)) : formatCount(t.failedTurns),
    marks(group, point),
  ];
}

/** The worst session's recorded-replay error: how far the savings below can be trusted (replay.md §6). */
function fidelityLine(group: TuneGroup): string {
  let worst: { readonly sessionId: string; readonly pct: number } | null = null;
  for (const f of group.fidelity) {
    const pct = f.fidelity.promptTokensErrorPct;
    if (pct !== null && (worst === null || Math.abs(pct) > Math.abs(worst.pct)))
      worst = { sessionId: f.sessionId, pct };
  }
  if (worst === null) return '  recorded replay fidelity: no measured usage to compare with';
  return `  recorded replay fidelity: prompt tokens ${formatPct(worst.pct, { signed: true })} against the measured usage in the worst session (${worst.sessionId})`;
}

function groupLines(group: TuneGroup, name: string, options: TerminalOptions): string[] {
  const sessions = group.sessionIds.length;
  const bill = group.bill;
  const paint = makePaint(options);
  const width = fitWidth(options);
  const title = `${name}: ${formatCount(sessions)} session${sessions === 1 ? '' : 's'}`;
  const lines = [
    wrapText(
      `${title} (bill ${money(costPicoUsdOrNull(bill), bill.unpricedRequests)} for ${formatCount(bill.requests)} measured requests)`,
      width,
      '  ',
    ),
  ];
  lines.push(wrapText(fidelityLine(group), width, '    '));
  lines.push(renderTable({ columns: COLUMNS, rows: group.points.map((point) => row(group, point, paint)) }, options));
  for (const curve of group.curves) {
    const knee = curve.knee;
    lines.push(
      wrapText(
        knee === null
          ? `  knee of ${curve.series}: none (fewer than three points, a flat curve, or unpriced requests)`
          : `  knee of ${curve.series}: ${formatKnobValue(curve.knob, knee.targetTokens)} (${knee.side === 'below' ? 'the curve bends up after it' : 'the curve flattens after it'})`,
        width,
        '    ',
      ),
    );
  }
  // Several families side by side: each curve's own best, then the one across them.
  const families = new Set(group.curves.map((curve) => curve.family));
  if (families.size > 1)
    for (const curve of group.curves)
      lines.push(wrapText(`  best on ${curve.series}: ${curve.recommendation.reason}`, width, '    '));
  lines.push(wrapText(`  recommended: ${group.recommendation.reason}`, width, '    '));
  return lines;
}

/** The whole report as terminal text (no trailing newline). */
export function renderTuneReport(report: TuneReport, options: TerminalOptions = PLAIN): string {
  const width = fitWidth(options);
  const out: string[] = [];
  // With one model the per-model table would repeat the overall one.
  const only = report.models.length === 1 ? report.models[0]?.model : undefined;
  if (only === undefined)
    for (const group of report.models) out.push(...groupLines(group, group.model ?? '', options), '');
  out.push(...groupLines(report.overall, only ?? 'All models', options), '');
  const notes = [
    'Savings are against the simulated `recorded` scenario (modelling error cancels). "after compaction": requests sent right after a compaction; "blocked": compactions a PreCompact hook refused.',
    `A cost ending in ${INCOMPLETE_MARK} leaves out unpriced requests.`,
    `Knee: ${report.method.knee}`,
    `Recommendation: ${report.method.recommendation}`,
    report.assumption,
  ];
  for (const note of notes) out.push(wrapText(note, width));
  return out.join('\n');
}
