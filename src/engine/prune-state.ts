/**
 * `PruneState` (engine.md §5.6): per-session memory of how each tool result was sent, so that
 * already-sent bytes never change — a result replaced once is re-sent with the identical
 * replacement; a result sent whole stays whole.
 */

export interface PruneCandidate {
  readonly id: string;
  readonly sizeChars: number;
}

export interface PrunePartition<T extends PruneCandidate> {
  /** Replaced before: re-apply the stored string verbatim. */
  readonly mustReapply: (T & { readonly replacement: string })[];
  /** Sent whole before: off limits (it is in the cached prefix). */
  readonly frozen: T[];
  /** Never sent: eligible for a decision now. */
  readonly fresh: T[];
}

export class PruneState {
  private readonly replaced = new Map<string, string>();
  private readonly seen = new Set<string>();
  private revisionValue = 0;

  /** Changes whenever a decision is recorded or forgotten (a caller's record of the state is then stale). */
  get revision(): number {
    return this.revisionValue;
  }

  /** Splits candidates by what was already sent for them. */
  partition<T extends PruneCandidate>(candidates: readonly T[]): PrunePartition<T> {
    const partition: PrunePartition<T> = { mustReapply: [], frozen: [], fresh: [] };
    for (const candidate of candidates) {
      const replacement = this.replaced.get(candidate.id);
      // `replacement` before the spread: on Node 20 (V8 11) a property added after a leading spread
      // costs ~1 µs (this runs for every replaced result on every request).
      if (replacement !== undefined) partition.mustReapply.push({ replacement, ...candidate });
      else if (this.seen.has(candidate.id)) partition.frozen.push(candidate);
      else partition.fresh.push(candidate);
    }
    return partition;
  }

  /** Remembers the exact replacement sent for `id`. */
  recordReplaced(id: string, replacement: string): void {
    this.replaced.set(id, replacement);
    this.revisionValue += 1;
  }

  /** Freezes a result sent whole; ignored for a replaced one (it never goes back to full size). */
  recordSeen(id: string): void {
    if (this.replaced.has(id) || this.seen.has(id)) return;
    this.seen.add(id);
    this.revisionValue += 1;
  }

  /** Forgets every decision (the Aug version did this at each `run()`, §5.1). */
  reset(): void {
    this.replaced.clear();
    this.seen.clear();
    this.revisionValue += 1;
  }

  /** An independent copy (for branching a replay). */
  clone(): PruneState {
    const copy = new PruneState();
    for (const [id, replacement] of this.replaced) copy.replaced.set(id, replacement);
    for (const id of this.seen) copy.seen.add(id);
    return copy;
  }

  /** The replacement previously sent for `id`, if any. */
  replacementFor(id: string): string | undefined {
    return this.replaced.get(id);
  }

  /** Whether `id` was sent whole (and is therefore frozen). */
  isFrozen(id: string): boolean {
    return this.seen.has(id);
  }
}

/**
 * `selectFreshToReplace` (§5.6): nothing while frozen + selectable fit the budget; else the
 * largest selectable first (stable on ties), each counted as freeing its whole size, until the
 * total fits or none is left. Frozen bytes over budget are accepted, never forced.
 */
export function selectFreshToReplace<T extends PruneCandidate>(
  selectable: readonly T[],
  frozenSizeChars: number,
  budgetChars: number,
): T[] {
  let remainingChars = frozenSizeChars + selectable.reduce((sum, candidate) => sum + candidate.sizeChars, 0);
  const selected: T[] = [];
  if (remainingChars <= budgetChars) return selected;
  for (const candidate of [...selectable].sort((a, b) => b.sizeChars - a.sizeChars)) {
    if (remainingChars <= budgetChars) break;
    selected.push(candidate);
    remainingChars -= candidate.sizeChars;
  }
  return selected;
}

/** The replacement text, deterministic in id and size (§5.6). */
export function prunedToolResultText(id: string, sizeChars: number): string {
  return `[tool result omitted to save context \u2014 ${sizeChars} chars. Retrieve with the \`output\` tool (id="${id}"), or re-run the tool.]`;
}
