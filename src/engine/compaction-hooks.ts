/** The PreCompact / PostCompact hooks `MemoryService.compact` runs (engine.md §4.5 steps 3 and 8). */

/** What a hook sees; `turnCount` is the number of previous compactions (FreeCode's naming, §4.5). */
export interface HookContext {
  readonly sessionId: string;
  readonly turnCount: number;
}

export type PreCompactDecision =
  { readonly allowed: true } | { readonly allowed: false; readonly reason?: string | undefined };

export interface CompactionHooks {
  preCompact(context: HookContext): PreCompactDecision;
  /** Called after a successful compaction with the new compaction count; its return is ignored. */
  postCompact(context: HookContext): void;
}

/** No hooks configured: every compaction is allowed. */
export const NO_COMPACTION_HOOKS: CompactionHooks = Object.freeze({
  preCompact: (): PreCompactDecision => ({ allowed: true }),
  postCompact: () => undefined,
});
