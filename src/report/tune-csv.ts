/**
 * `tune --csv <file>`: one row per group (each main model, then `(all)`) and scenario, money as
 * exact decimal USD (empty = unpriced), so a spreadsheet can redraw every curve. Columns are
 * listed in `TUNE_CSV_COLUMNS` order and documented in the README's Tune section.
 */
import { formatPicoUsd } from '../cost/money.js';
import type { TuneGroup, TunePoint, TuneReport } from '../tune/tune-report.js';
import type { CsvColumn } from './csv.js';
import { csvChunks } from './csv.js';

/** The `group` of the row for all sessions together (a model name never has parentheses). */
export const ALL_GROUP = '(all)';

type TuneCsvRow = { readonly group: TuneGroup; readonly point: TunePoint };

/**
 * Exact decimal USD. Written as a number when the number prints back to the same decimal, so that
 * a negative amount is not taken for a formula and prefixed with `'` by the CSV writer's guard;
 * otherwise (more than ~15 significant digits) as the exact string.
 */
function usdCell(picoUsd: bigint | null): string | number | null {
  if (picoUsd === null) return null;
  const exact = formatPicoUsd(picoUsd);
  const asNumber = Number(exact);
  return String(asNumber) === exact ? asNumber : exact;
}

function isKnee(row: TuneCsvRow): boolean {
  return row.group.curves.some((curve) => curve.knee?.scenario === row.point.scenario.name);
}

function isRecommended(row: TuneCsvRow): boolean {
  const r = row.group.recommendation;
  return r.kind === 'target' && r.point.scenario === row.point.scenario.name;
}

export const TUNE_CSV_COLUMNS: readonly CsvColumn<TuneCsvRow>[] = [
  { header: 'group', value: (r) => r.group.model ?? ALL_GROUP },
  { header: 'sessions', value: (r) => r.group.sessionIds.length },
  { header: 'scenario', value: (r) => r.point.scenario.name },
  { header: 'family', value: (r) => r.point.scenario.family },
  { header: 'series', value: (r) => r.point.series },
  { header: 'target_tokens', value: (r) => r.point.scenario.params.targetTokens },
  { header: 'buffer_tokens', value: (r) => r.point.scenario.params.bufferTokens },
  { header: 'preserve_recent_turns', value: (r) => r.point.scenario.params.preserveRecentTurns },
  { header: 'ttl', value: (r) => r.point.scenario.params.ttl },
  { header: 'tool_result_editing', value: (r) => r.point.scenario.params.editing.kind },
  {
    header: 'keep_tool_results',
    value: (r) =>
      r.point.scenario.params.editing.kind === 'observation-masking'
        ? r.point.scenario.params.editing.keepToolResults
        : null,
  },
  {
    header: 'clear_trigger_tokens',
    value: (r) =>
      r.point.scenario.params.editing.kind === 'clear-tool-uses' ? r.point.scenario.params.editing.triggerTokens : null,
  },
  {
    header: 'prune_protect_tokens',
    value: (r) =>
      r.point.scenario.params.editing.kind === 'opencode-prune' ? r.point.scenario.params.editing.protectTokens : null,
  },
  { header: 'requests', value: (r) => r.point.totals.requests },
  { header: 'summarize_requests', value: (r) => r.point.totals.summarizeRequests },
  { header: 'rejected_overflows', value: (r) => r.point.totals.rejectedOverflows },
  { header: 'failed_turns', value: (r) => r.point.totals.failedTurns },
  { header: 'prompt_tokens', value: (r) => r.point.totals.promptTokens },
  { header: 'cache_read_tokens', value: (r) => r.point.totals.cacheReadTokens },
  { header: 'cache_write_5m_tokens', value: (r) => r.point.totals.cacheWrite5mTokens },
  { header: 'cache_write_1h_tokens', value: (r) => r.point.totals.cacheWrite1hTokens },
  { header: 'uncached_input_tokens', value: (r) => r.point.totals.uncachedInputTokens },
  { header: 'output_tokens', value: (r) => r.point.totals.outputTokens },
  { header: 'peak_context_tokens', value: (r) => r.point.totals.peakContextTokens },
  { header: 'compactions', value: (r) => r.point.totals.compactions },
  {
    header: 'compactions_per_session',
    value: (r) =>
      r.point.totals.sessions === 0 ? 0 : Number((r.point.totals.compactions / r.point.totals.sessions).toFixed(6)),
  },
  { header: 'blocked_compactions', value: (r) => r.point.totals.blockedCompactions },
  { header: 'summarized_away_tokens', value: (r) => r.point.totals.summarizedAwayTokens },
  { header: 'requests_after_compaction', value: (r) => r.point.totals.requestsAfterCompaction },
  { header: 'unpriced_requests', value: (r) => r.point.totals.unpricedRequests },
  { header: 'cost_usd', value: (r) => usdCell(r.point.costPicoUsd) },
  { header: 'cost_cache_read_usd', value: (r) => usdCell(r.point.totals.cost.cacheReadPicoUsd) },
  { header: 'cost_cache_write_usd', value: (r) => usdCell(r.point.totals.cost.cacheWritePicoUsd) },
  { header: 'cost_uncached_input_usd', value: (r) => usdCell(r.point.totals.cost.uncachedInputPicoUsd) },
  { header: 'cost_output_usd', value: (r) => usdCell(r.point.totals.cost.outputPicoUsd) },
  { header: 'cost_summarizer_usd', value: (r) => usdCell(r.point.totals.cost.summarizerPicoUsd) },
  { header: 'saving_vs_recorded_usd', value: (r) => usdCell(r.point.savingVsRecordedPicoUsd) },
  { header: 'saving_vs_recorded_pct', value: (r) => r.point.savingVsRecordedPct },
  { header: 'knee', value: isKnee },
  { header: 'recommended', value: isRecommended },
];

function* rowsOf(report: TuneReport): Generator<TuneCsvRow> {
  for (const group of [...report.models, report.overall]) {
    for (const point of group.points) yield { group, point };
  }
}

/** The CSV file's content as chunks (header first). */
export function tuneCsvChunks(report: TuneReport): Generator<string> {
  return csvChunks(TUNE_CSV_COLUMNS, rowsOf(report));
}
