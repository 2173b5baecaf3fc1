/**
 * The bill as CSV (`cachecost report --csv <file>`): one row per group then a `total` row, tokens
 * as integers, money as exact decimal USD (empty = unpriced), through the shared writer (formula
 * escaping: a project or model name starting with `=` cannot become a spreadsheet formula).
 */
import type { BillLineJson, BillReport } from './bill-json.js';
import type { CsvColumn } from './csv.js';

/** A CSV row: which line it is (`group` or `total`) and the line. */
export type BillCsvRow = { readonly row: 'group' | 'total'; readonly line: BillLineJson };

/** The columns, in their stable order; the key column is named after the grouping. */
export function billCsvColumns(by: BillReport['by']): CsvColumn<BillCsvRow>[] {
  const line =
    <T>(read: (line: BillLineJson) => T) =>
    (row: BillCsvRow) =>
      read(row.line);
  return [
    { header: 'row', value: (r) => r.row },
    { header: by, value: line((l) => l.key) },
    { header: 'requests', value: line((l) => l.requests) },
    { header: 'sessions', value: line((l) => l.sessions) },
    { header: 'models', value: line((l) => l.models.join(';')) },
    { header: 'first_request_at', value: line((l) => l.firstRequestAt) },
    { header: 'last_request_at', value: line((l) => l.lastRequestAt) },
    { header: 'prompt_tokens', value: line((l) => l.promptTokens) },
    { header: 'uncached_input_tokens', value: line((l) => l.uncachedInputTokens) },
    { header: 'cache_read_tokens', value: line((l) => l.cacheReadTokens) },
    { header: 'cache_write_5m_tokens', value: line((l) => l.cacheWrite5mTokens) },
    { header: 'cache_write_1h_tokens', value: line((l) => l.cacheWrite1hTokens) },
    { header: 'cache_write_unknown_ttl_tokens', value: line((l) => l.cacheWriteUnknownTtlTokens) },
    { header: 'output_tokens', value: line((l) => l.outputTokens) },
    { header: 'cache_hit_rate_pct', value: line((l) => l.cacheHitRatePct) },
    { header: 'long_context_requests', value: line((l) => l.longContextRequests) },
    { header: 'unpriced_requests', value: line((l) => l.unpricedRequests) },
    { header: 'unpriced_tokens', value: line((l) => l.unpricedTokens) },
    { header: 'cost_input_usd', value: line((l) => l.costByClassUsd.uncachedInput) },
    { header: 'cost_cache_read_usd', value: line((l) => l.costByClassUsd.cacheRead) },
    { header: 'cost_cache_write_5m_usd', value: line((l) => l.costByClassUsd.cacheWrite5m) },
    { header: 'cost_cache_write_1h_usd', value: line((l) => l.costByClassUsd.cacheWrite1h) },
    { header: 'cost_cache_write_unknown_ttl_usd', value: line((l) => l.costByClassUsd.cacheWriteUnknownTtl) },
    { header: 'cost_output_usd', value: line((l) => l.costByClassUsd.output) },
    { header: 'cost_usd', value: line((l) => l.costUsd) },
    { header: 'cost_complete', value: line((l) => l.costComplete) },
    // Empty when not known (`report --from` over exports written before `requests.agent_id` existed).
    { header: 'subagent_requests', value: line((l) => l.subagentRequests) },
    { header: 'subagent_cost_usd', value: line((l) => l.subagentCostUsd) },
    { header: 'subagent_cost_complete', value: line((l) => l.subagentCostComplete) },
    { header: 'own_cost_usd', value: line((l) => l.ownCostUsd) },
  ];
}

/** The rows: every group, then the total. */
export function billCsvRows(report: BillReport): BillCsvRow[] {
  return [...report.lines.map((line) => ({ row: 'group' as const, line })), { row: 'total', line: report.total }];
}
