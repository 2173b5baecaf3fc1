/**
 * The `flags` report: every flag as JSON, CSV rows, or a terminal table followed by one sentence
 * per flag, and, when scenarios were examined beside the log, a count of flagged sessions per
 * flag and scenario (which flags a threshold change would clear).
 */
import { formatUsd } from '../format/money.js';
import { formatCount } from '../format/number.js';
import { fitWidth, paint as makePaint, PLAIN, type TerminalOptions } from '../format/terminal.js';
import { wrapText } from '../format/wrap.js';
import type { Flag, FlagKind, RequestRange, Severity } from '../detect/flag.js';
import { FLAG_KINDS, FLAG_TITLES } from '../detect/flag.js';
import type { FlagThresholds } from '../detect/thresholds.js';
import type { CsvColumn } from './csv.js';
import { renderTable } from './table.js';
import { type FlagJson, flagJson, sortFlags } from './flag-json.js';

export type FlagsReport = {
  /** The counterfactual behind every simulated number (replay.md §4). */
  readonly assumption: string;
  readonly baseline: string;
  /** `recorded` first, then the simulated scenarios examined. */
  readonly scenarios: readonly string[];
  readonly thresholds: FlagThresholds;
  readonly sessions: number;
  readonly flags: readonly FlagJson[];
  /** Sessions flagged, per flag kind and scenario. */
  readonly flaggedSessions: Readonly<Record<string, Readonly<Record<FlagKind, number>>>>;
  readonly ingestIssues: number;
};

export const FLAGS_ASSUMPTION =
  'Flags on `recorded` come from the log (measured usage, recorded events); flags on other scenarios and every dollar figure compared with a scenario come from replays under the first-order counterfactual: the agent is assumed to produce the same items in the same order under every policy.';

const NO_FLAGS: Readonly<Record<FlagKind, number>> = {
  'runaway-cost': 0,
  'never-compacted': 0,
  'non-converging-overflow': 0,
  'compaction-storm': 0,
  'blocked-hook-storm': 0,
  'cache-bust': 0,
  'estimate-divergence': 0,
  'ttl-mismatch': 0,
};

/** Assembles the report. */
export function buildFlagsReport(input: {
  readonly flags: readonly Flag[];
  readonly scenarios: readonly string[];
  readonly baseline: string;
  readonly thresholds: FlagThresholds;
  readonly sessions: number;
  readonly ingestIssues: number;
}): FlagsReport {
  const flags = sortFlags(input.flags.map(flagJson), input.scenarios);
  const flaggedSessions: Record<string, Record<FlagKind, number>> = {};
  for (const scenario of input.scenarios) {
    const counts: Record<FlagKind, number> = { ...NO_FLAGS };
    for (const flag of flags) if (flag.scenario === scenario) counts[flag.kind] += 1;
    flaggedSessions[scenario] = counts;
  }
  return {
    assumption: FLAGS_ASSUMPTION,
    baseline: input.baseline,
    scenarios: input.scenarios,
    thresholds: input.thresholds,
    sessions: input.sessions,
    flags,
    flaggedSessions,
    ingestIssues: input.ingestIssues,
  };
}

function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/** `$5.57`, `-$0.0100`, `unpriced`, `-` (no dollar figure). */
export function stakeText(flag: FlagJson): string {
  if (flag.atStakeUsd === null) return flag.stakeNote === 'unpriced' ? formatUsd(null) : '-';
  return formatUsd(flag.atStakeUsd);
}

function rangeText(range: RequestRange): string {
  return range.first === range.last ? String(range.first) : `${range.first}–${range.last}`;
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}

function countLine(report: FlagsReport): string {
  const recorded = report.flags.filter((flag) => flag.scenario === 'recorded');
  const bySeverity = (['critical', 'warning', 'info'] as const)
    .map((severity) => `${recorded.filter((f) => f.severity === severity).length} ${severity}`)
    .join(', ');
  const sessions = new Set(recorded.map((flag) => flag.sessionId)).size;
  return `Recorded data: ${plural(recorded.length, 'flag')} (${bySeverity}) in ${formatCount(sessions)} of ${plural(report.sessions, 'session')}.`;
}

/** The terminal rendering: a table, one sentence per flag, the per-scenario counts, and notes. */
export function renderFlagsReport(report: FlagsReport, options: TerminalOptions = PLAIN): string {
  const paint = makePaint(options);
  const width = fitWidth(options);
  const severityText = (severity: Severity) =>
    severity === 'critical' ? paint.bad(severity) : severity === 'warning' ? paint.warn(severity) : severity;
  const out: string[] = [wrapText(countLine(report), width)];
  if (report.flags.length > 0) {
    out.push(
      renderTable(
        {
          columns: [
            { header: '#', align: 'right' },
            { header: 'severity', align: 'left' },
            { header: 'flag', align: 'left' },
            { header: 'session', align: 'left' },
            { header: 'scenario', align: 'left' },
            { header: 'requests', align: 'right', secondary: true },
            { header: 'at stake', align: 'right' },
          ],
          rows: report.flags.map((flag, i) => [
            String(i + 1),
            severityText(flag.severity),
            flag.title,
            shortId(flag.sessionId),
            flag.scenario,
            rangeText(flag.requests),
            stakeText(flag),
          ]),
        },
        options,
      ),
    );
    for (const [i, flag] of report.flags.entries()) {
      const against =
        flag.atStakeUsd !== null && flag.stakeAgainst !== null ? ` [at stake vs ${flag.stakeAgainst}]` : '';
      out.push(
        wrapText(
          `${i + 1}. ${flag.title} (${shortId(flag.sessionId)}, ${flag.scenario}${flag.basis === 'simulated' && flag.scenario === 'recorded' ? ', simulated' : ''}): ${flag.summary}${against}`,
          width,
          '   ',
        ),
      );
    }
  }
  if (report.scenarios.length > 1) {
    out.push('', 'Sessions flagged per scenario');
    out.push(
      renderTable(
        {
          columns: [
            { header: 'flag', align: 'left' },
            ...report.scenarios.map((scenario) => ({ header: scenario, align: 'right' as const })),
          ],
          rows: FLAG_KINDS.map((kind) => [
            FLAG_TITLES[kind],
            ...report.scenarios.map((scenario) => String(report.flaggedSessions[scenario]?.[kind] ?? 0)),
          ]),
        },
        options,
      ),
    );
  }
  out.push(
    '',
    wrapText(
      `Dollars at stake: the flagged requests' cost minus the same requests under ${report.baseline} (both replayed), or the explicit re-pricing the flag names; flags of one session overlap (a runaway includes its cache bust), so do not add them.`,
      width,
    ),
  );
  if (report.scenarios.length > 1) out.push(wrapText(report.assumption, width));
  return out.join('\n');
}

function evidenceText(evidence: FlagJson['evidence']): string {
  return Object.entries(evidence)
    .map(([name, value]) => `${name}=${value === null ? '' : String(value)}`)
    .join(';');
}

/** CSV columns, one row per flag; dollars as exact decimals (empty = unpriced or none). */
export const FLAG_CSV_COLUMNS: readonly CsvColumn<FlagJson>[] = [
  { header: 'session_id', value: (f) => f.sessionId },
  { header: 'scenario', value: (f) => f.scenario },
  { header: 'kind', value: (f) => f.kind },
  { header: 'severity', value: (f) => f.severity },
  { header: 'basis', value: (f) => f.basis },
  { header: 'first_request', value: (f) => f.requests.first },
  { header: 'last_request', value: (f) => f.requests.last },
  { header: 'usd_at_stake', value: (f) => f.atStakeUsd },
  { header: 'stake_against', value: (f) => f.stakeAgainst },
  { header: 'stake_note', value: (f) => f.stakeNote },
  { header: 'summary', value: (f) => f.summary },
  { header: 'evidence', value: (f) => evidenceText(f.evidence) },
];
