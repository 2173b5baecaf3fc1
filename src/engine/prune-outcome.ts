/** What every tool-result pruning policy returns (engine.md §5.6). */

/** A tool result newly shrunk by this call (the caller's read-dedup hook reads `name`/`args`, §5.6). */
export interface ReplacedToolResult {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /** The result's length before replacement, in UTF-16 code units. */
  readonly sizeChars: number;
}

export interface PruneStats {
  /** Tool parts with a non-empty result in assistant messages. */
  readonly candidateCount: number;
  /** Candidates shown shrunk this call (re-applied or new). */
  readonly replacedCount: number;
  /** Of those, shrunk for the first time (for sticky policies; all of them otherwise). */
  readonly newlyReplacedCount: number;
  /** Σ candidate result lengths before and after. */
  readonly charsBefore: number;
  readonly charsAfter: number;
}

export interface PruneOutcome<M> {
  /** The provider-facing copy: unchanged messages by reference, changed ones rebuilt. */
  readonly messages: M[];
  readonly stats: PruneStats;
  readonly newlyReplaced: readonly ReplacedToolResult[];
}
