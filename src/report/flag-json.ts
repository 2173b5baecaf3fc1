/**
 * A flag as JSON (`FlagJson`), and the order reports list flags in: what `simulate` and the flags
 * report both need, apart from the tables of `flags-report.ts` (a `simulate --json` run loads no
 * table renderer).
 */
import { formatPicoUsd } from '../cost/money.js';
import type { Flag } from '../detect/flag.js';
import { FLAG_TITLES, severityRank } from '../detect/flag.js';

/**
 * One flag as JSON: the flag's own fields but its stake, which becomes an exact decimal USD string
 * (like every `…Usd` field), what it is against, and a note.
 */
export type FlagJson = Omit<Flag, 'stake'> & {
  readonly title: string;
  /** Exact USD; positive = the flagged behaviour costs this much more than `stakeAgainst`; null when unpriced or not applicable. */
  readonly atStakeUsd: string | null;
  readonly stakeAgainst: string | null;
  /** `unpriced` (a request has no price), or why the flag has no dollar figure; null when priced. */
  readonly stakeNote: string | null;
};

/** A flag as JSON. */
export function flagJson(flag: Flag): FlagJson {
  const stake = flag.stake;
  return {
    kind: flag.kind,
    title: FLAG_TITLES[flag.kind],
    severity: flag.severity,
    sessionId: flag.sessionId,
    scenario: flag.scenario,
    basis: flag.basis,
    requests: flag.requests,
    evidence: flag.evidence,
    summary: flag.summary,
    atStakeUsd: stake.kind === 'priced' ? formatPicoUsd(stake.picoUsd) : null,
    stakeAgainst: stake.kind === 'none' ? null : stake.against,
    stakeNote: stake.kind === 'priced' ? null : stake.kind === 'unpriced' ? 'unpriced' : stake.reason,
  };
}

function stakeOrder(flag: FlagJson): number {
  // Ordering only: the exact string's rounding to a double cannot swap two different amounts that matter.
  return flag.atStakeUsd === null ? Number.NEGATIVE_INFINITY : Number(flag.atStakeUsd);
}

/** Flags in report order: scenarios as given, then the worst severity, then the most dollars. */
export function sortFlags(flags: readonly FlagJson[], scenarios: readonly string[]): FlagJson[] {
  const position = (scenario: string) => scenarios.indexOf(scenario);
  return [...flags].sort(
    (a, b) =>
      position(a.scenario) - position(b.scenario) ||
      severityRank(b.severity) - severityRank(a.severity) ||
      stakeOrder(b) - stakeOrder(a),
  );
}
