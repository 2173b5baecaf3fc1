/**
 * The `simulate` report in the terminal: per session, then the totals, as tables (`table.ts`).
 * Apart from the report's assembly (`simulate-report.ts`) so that a `--json` run loads no table
 * renderer.
 */
import { formatUsd, INCOMPLETE_MARK } from '../format/money.js';
import { formatCount, formatPct, formatTokens } from '../format/number.js';
import { fitWidth, type Paint, paint as makePaint, PLAIN, type TerminalOptions } from '../format/terminal.js';
import { wrapText } from '../format/wrap.js';
import type { ScenarioResult, SimulateReport, UsageTotals } from './simulate-report.js';
import { renderTable, type TableColumn } from './table.js';

function money(u: Pick<UsageTotals, 'costUsd' | 'costComplete'>, paint: Paint): string {
  const text = formatUsd(u.costUsd, { incomplete: !u.costComplete && u.costUsd !== null });
  return u.costComplete ? text : paint.warn(text);
}

/** A saving: negative (the scenario costs more than `recorded`) in red. */
function saving(usd: string | null, paint: Paint): string {
  if (usd === null) return '-';
  const text = formatUsd(usd);
  return Number(usd) < 0 && text.startsWith('-') ? paint.bad(text) : text;
}

const COLUMNS: readonly TableColumn[] = [
  { header: 'scenario', align: 'left' },
  { header: 'prompt', align: 'right', secondary: true },
  { header: 'cache read', align: 'right' },
  { header: 'cache write', align: 'right' },
  { header: 'uncached', align: 'right', secondary: true },
  { header: 'output', align: 'right', secondary: true },
  { header: 'cost', align: 'right' },
  { header: 'saved tokens', align: 'right', secondary: true },
  { header: 'saved USD', align: 'right' },
  { header: 'saved', align: 'right' },
  { header: 'compactions', align: 'right' },
  { header: 'blocked', align: 'right', secondary: true },
  { header: 'overflows', align: 'right', secondary: true },
  { header: 'failed turns', align: 'right', secondary: true },
];

function usageCells(label: string, u: UsageTotals, paint: Paint): string[] {
  return [
    label,
    formatTokens(u.promptTokens),
    formatTokens(u.cacheReadTokens),
    formatTokens(u.cacheWriteTokens),
    formatTokens(u.uncachedInputTokens),
    formatTokens(u.outputTokens),
    money(u, paint),
  ];
}

function resultCells(r: ScenarioResult, paint: Paint): string[] {
  const recorded = r.scenario === 'recorded';
  return [
    ...usageCells(r.scenario, r, paint),
    recorded ? '' : r.savingVsRecorded.promptTokens === null ? '-' : formatTokens(r.savingVsRecorded.promptTokens),
    recorded ? '' : saving(r.savingVsRecorded.costUsd, paint),
    recorded ? '' : formatPct(r.savingVsRecorded.pct),
    formatCount(r.compactions),
    formatCount(r.blockedCompactions),
    formatCount(r.rejectedOverflows),
    r.failedTurns > 0 ? paint.bad(formatCount(r.failedTurns)) : formatCount(r.failedTurns),
  ];
}

function scenarioTable(
  recorded: UsageTotals,
  measuredRequests: number,
  results: readonly ScenarioResult[],
  options: TerminalOptions,
): string {
  const paint = makePaint(options);
  const blank = ['', '', '', '', '', '', ''];
  const bill =
    measuredRequests === 0
      ? ['bill (measured)', '-', '-', '-', '-', '-', 'no usage', ...blank]
      : [...usageCells('bill (measured)', recorded, paint), ...blank];
  return renderTable({ columns: COLUMNS, rows: [bill, ...results.map((r) => resultCells(r, paint))] }, options);
}

/** The terminal report: per session, then the totals; the assumption once. Notes wrap to the width. */
export function renderSimulateReport(report: SimulateReport, options: TerminalOptions = PLAIN): string {
  const width = fitWidth(options);
  const out: string[] = [];
  const note = (text: string) => out.push(wrapText(text, width, '  '));
  for (const s of report.sessions) {
    note(`Session ${s.sessionId} (${s.source}, ${s.model}; ${formatCount(s.recorded.requests)} measured requests)`);
    const f = s.fidelity;
    note(
      `  recorded replay fidelity: prompt tokens ${formatPct(f.promptTokensErrorPct, { signed: true })}, cost ${formatPct(f.costErrorPct, { signed: true })}, ` +
        `median request ${formatPct(f.medianRequestErrorPct, { digits: 2 })}${f.note === null ? '' : ` (${f.note})`}`,
    );
    const flagged = s.results.filter((r) => r.flags.length > 0).map((r) => `${r.scenario}: ${r.flags.join(', ')}`);
    if (flagged.length > 0) note(`  flags: ${flagged.join('; ')} (evidence and dollars: cachecost flags)`);
    note(
      `  recorded policy: ${s.recordedPolicy}; ${s.charsPerToken.toFixed(2)} chars/token, static block ${formatTokens(s.staticBlockTokens)} tokens`,
    );
    out.push(scenarioTable(s.recorded, s.recorded.requests, s.results, options));
    out.push('');
  }
  out.push(`Total over ${formatCount(report.totals.sessions)} session${report.totals.sessions === 1 ? '' : 's'}`);
  out.push(scenarioTable(report.totals.recorded, report.totals.recorded.requests, report.totals.results, options));
  out.push('');
  note(
    "Savings are against the simulated `recorded` scenario (modelling error cancels); the bill row is the log's measured usage.",
  );
  note(`A cost ending in ${INCOMPLETE_MARK} leaves out unpriced requests.`);
  note(report.assumption);
  return out.join('\n');
}
