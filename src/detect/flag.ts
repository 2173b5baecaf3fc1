/**
 * A flag: one pathological pattern found in one session under one scenario (replay.md §9), with
 * the requests involved, the evidence as numbers, one human sentence, and the dollars at stake.
 */

export const FLAG_KINDS = [
  'runaway-cost',
  'never-compacted',
  'non-converging-overflow',
  'compaction-storm',
  'blocked-hook-storm',
  'cache-bust',
  'estimate-divergence',
  'ttl-mismatch',
] as const;
export type FlagKind = (typeof FLAG_KINDS)[number];

/** The name of each flag in reports. */
export const FLAG_TITLES: Readonly<Record<FlagKind, string>> = {
  'runaway-cost': 'runaway cost',
  'never-compacted': 'never compacted',
  'non-converging-overflow': 'non-converging overflow',
  'compaction-storm': 'compaction storm',
  'blocked-hook-storm': 'blocked-hook storm',
  'cache-bust': 'cache bust',
  'estimate-divergence': 'estimate divergence',
  'ttl-mismatch': 'TTL mismatch',
};

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Orders severities: info < warning < critical. */
export function severityRank(severity: Severity): number {
  switch (severity) {
    case 'info':
      return 0;
    case 'warning':
      return 1;
    case 'critical':
      return 2;
    default: {
      const unreachable: never = severity;
      return unreachable;
    }
  }
}

/** Whether `severity` is `floor` or worse (for `--fail-on`). */
export function isAtLeast(severity: Severity, floor: Severity): boolean {
  return severityRank(severity) >= severityRank(floor);
}

/**
 * The dollars at stake: what the flagged behaviour costs more than the comparison named in
 * `against` (positive = the flagged behaviour is dearer). Exact pico-dollars from the pricing
 * reference; `unpriced` when a request involved has no price (never $0); `none` when the flag
 * has no cost of its own (a counting error, or the comparison is the flagged trace itself).
 */
export type Stake =
  | { readonly kind: 'priced'; readonly picoUsd: bigint; readonly against: string }
  | { readonly kind: 'unpriced'; readonly against: string }
  | { readonly kind: 'none'; readonly reason: string };

/** Where the flagged numbers come from: the log's measured usage, or a replay. */
export type FlagBasis = 'measured' | 'simulated';

/** Log request indices, inclusive (`first <= last`). */
export type RequestRange = { readonly first: number; readonly last: number };

export type Flag = {
  readonly kind: FlagKind;
  readonly severity: Severity;
  readonly sessionId: string;
  /** `recorded` (what the log shows) or the name of a simulated scenario. */
  readonly scenario: string;
  readonly basis: FlagBasis;
  readonly requests: RequestRange;
  /** The numbers behind the flag, by name (units in the names). */
  readonly evidence: Readonly<Record<string, number | null>>;
  /** One line a person reads: the evidence in words. */
  readonly summary: string;
  readonly stake: Stake;
};
