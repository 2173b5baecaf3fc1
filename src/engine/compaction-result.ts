/**
 * `CompactionResult` (engine.md §4.5): FreeCode's fields (`success`, `blocked`, `reason`,
 * `summary`, ids and estimates) on a union discriminated by `kind`.
 */
import type { LlmSummaryRequest } from './llm-summary.js';
import type { CompactionSummary } from './memory-state.js';

interface CompactionResultBase {
  readonly preservedMessageIds: readonly string[];
  readonly compactedMessageIds: readonly string[];
  /** Memory estimates, in tokens (never the measured request size, §6.6). */
  readonly tokenCountBefore: number;
  readonly tokenCountAfter: number;
}

/** Which summarizer produced the summary, with the LLM request when one was made (§3.4). */
export type SummarizerUsed =
  | { readonly kind: 'heuristic' }
  | { readonly kind: 'llm'; readonly request: LlmSummaryRequest }
  | { readonly kind: 'llm-failed'; readonly request: LlmSummaryRequest; readonly error: string };

export type CompactionResult =
  | (CompactionResultBase & {
      readonly kind: 'compacted';
      readonly success: true;
      readonly summary: CompactionSummary;
      readonly summarizer: SummarizerUsed;
    })
  /** Selection found nothing to summarize: no hooks ran, nothing was saved (§4.5 step 2). */
  | (CompactionResultBase & { readonly kind: 'nothing-to-compact'; readonly success: true })
  /** A PreCompact hook said no; history is intact, `preservedMessageIds` lists every message (§4.5 step 3). */
  | (CompactionResultBase & {
      readonly kind: 'blocked';
      readonly success: false;
      readonly blocked: true;
      readonly reason: string | undefined;
    });
