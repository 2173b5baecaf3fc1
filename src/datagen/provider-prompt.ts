/**
 * The provider-facing prompt of one request, as segments (the shared cache/token rules):
 * segment 0 is the static system+tools block, then the summary block when a compaction happened,
 * then one segment per visible item of the session store: a user message, an assistant text, a
 * tool call (name + args) and its result. The store keeps full results; the legacy pruning
 * policies change only the provider-facing copy, and a changed rendering is a new segment id:
 * - RC4 sliding truncation (engine.md §5.6 "History"): results of responses other than the two
 *   most recent ones are cut to 1,000 characters + `\n[truncated]`;
 * - RC3 time-based microcompact (§5.7): results longer than 200 characters that were in history
 *   when an idle run started are `[Old tool result content cleared]` for that run.
 */
import type { Segment } from './cache-sim.js';
import type { StoredMessage } from './store.js';
import { providerTokens } from './tokens.js';

export const RC4_CAP_CHARS = 1_000;
export const RC4_MARKER = '\n[truncated]';
export const RC4_KEEP_RESPONSES = 2;
export const RC3_CLEARED = '[Old tool result content cleared]';
export const RC3_MIN_RESULT_CHARS = 200;
export const RC3_IDLE_MS = 300_000;
export const SUMMARY_BLOCK_PREFIX = 'Compacted session summary:\n';

// Args are serialized once per tool part, not once per request (a session sends each part hundreds of times).
const argsLengthCache = new WeakMap<object, number>();

function argsJsonLength(args: Record<string, unknown>): number {
  let length = argsLengthCache.get(args);
  if (length === undefined) {
    length = JSON.stringify(args).length;
    argsLengthCache.set(args, length);
  }
  return length;
}

export interface LegacyPruning {
  readonly slidingTruncation: boolean;
  /** Store message ids whose tool result is cleared for the current run (RC3), or empty. */
  readonly clearedMessageIds: ReadonlySet<string>;
}

export interface PromptView {
  readonly segments: Segment[];
  readonly promptTokens: number;
  /** FreeCode's `model.request.promptChars` (§6.5): system text + texts + args JSON + results. */
  readonly promptChars: number;
}

export interface StaticBlock {
  readonly tokens: number;
  /** Characters of system text + dynamic context (tool schemas are not counted in `promptChars`). */
  readonly chars: number;
}

/** How one stored message renders as provider-facing items under the legacy policies. */
export function renderedResult(
  message: StoredMessage,
  result: string,
  legacy: LegacyPruning,
  recentResponses: ReadonlySet<number>,
): { text: string; variant: 'full' | 'truncated' | 'cleared' } {
  if (legacy.clearedMessageIds.has(message.id)) return { text: RC3_CLEARED, variant: 'cleared' };
  if (
    legacy.slidingTruncation &&
    message.responseIndex !== null &&
    !recentResponses.has(message.responseIndex) &&
    result.length > RC4_CAP_CHARS
  ) {
    return { text: `${result.slice(0, RC4_CAP_CHARS)}${RC4_MARKER}`, variant: 'truncated' };
  }
  return { text: result, variant: 'full' };
}

/** The `keep` most recent provider responses present in the store. */
export function recentResponseIndexes(store: readonly StoredMessage[], keep: number): Set<number> {
  const recent = new Set<number>();
  for (let i = store.length - 1; i >= 0 && recent.size < keep; i--) {
    const index = store[i]?.responseIndex;
    if (index !== null && index !== undefined) recent.add(index);
  }
  return recent;
}

/** Builds the prompt of a request from the current store and summary. */
export function buildPrompt(
  store: readonly StoredMessage[],
  summary: { readonly id: string; readonly content: string } | null,
  staticBlock: StaticBlock,
  cptHundredths: number,
  legacy: LegacyPruning,
): PromptView {
  const segments: Segment[] = [{ id: 'static', tokens: staticBlock.tokens }];
  let chars = staticBlock.chars;
  if (summary !== null) {
    const block = `${SUMMARY_BLOCK_PREFIX}${summary.content}`;
    segments.push({ id: `summary:${summary.id}`, tokens: providerTokens(block.length, cptHundredths) });
    chars += block.length;
  }
  const recent = legacy.slidingTruncation ? recentResponseIndexes(store, RC4_KEEP_RESPONSES) : new Set<number>();
  for (const message of store) {
    message.parts.forEach((part, partIndex) => {
      if (part.type === 'text') {
        segments.push({ id: `${message.id}/${partIndex}`, tokens: providerTokens(part.content.length, cptHundredths) });
        chars += part.content.length;
        return;
      }
      const argsChars = argsJsonLength(part.tool.args);
      segments.push({
        id: `${message.id}/${partIndex}/call`,
        tokens: providerTokens(part.tool.name.length + argsChars, cptHundredths),
      });
      const shown = renderedResult(message, part.result, legacy, recent);
      segments.push({
        id: `${message.id}/${partIndex}/result:${shown.variant}`,
        tokens: providerTokens(shown.text.length, cptHundredths),
      });
      chars += argsChars + shown.text.length;
    });
  }
  let promptTokens = 0;
  for (const s of segments) promptTokens += s.tokens;
  return { segments, promptTokens, promptChars: chars };
}
