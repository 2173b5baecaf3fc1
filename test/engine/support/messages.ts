/** Small builders shared by the engine tests (not a test file). */
import fc from 'fast-check';
import type { HistoryMessage, HistoryPart, ToolResultPart } from '../../../src/engine/index.js';

/** A memory-transcript-like message for the selector: role + size, plus a stable label. */
export interface Msg {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly tokenCount: number;
}

/** Builds messages from labels like `u1`, `a2` (role from the first letter), all `tokens` big. */
export function msgs(labels: string, tokens = 100): Msg[] {
  return labels
    .split(/\s+/)
    .filter((label) => label !== '')
    .map((label) => ({ id: label, role: label.startsWith('u') ? 'user' : 'assistant', tokenCount: tokens }));
}

export function ids(messages: readonly { readonly id: string }[]): string[] {
  return messages.map((message) => message.id);
}

/** Sizes: any value, or round ones that make sums hit the caps exactly (boundary cases). */
export function tokenCountArb(max: number): fc.Arbitrary<number> {
  return fc.oneof(
    fc.nat({ max }),
    fc.constantFrom(0, 100, 1_000, 2_000, 4_000).filter((n) => n <= max),
  );
}

/** Caps: any value, or the round ones (FreeCode's 8,000 and 2,000 among them). */
export function capArb(max: number): fc.Arbitrary<number> {
  return fc.oneof(
    fc.integer({ min: 0, max }),
    fc.constantFrom(0, 100, 1_000, 2_000, 8_000).filter((n) => n <= max),
  );
}

/** Arbitrary transcripts for properties: roles and token sizes, ids are positions. */
export function transcriptArb(options: { maxLength?: number; maxTokens?: number } = {}): fc.Arbitrary<Msg[]> {
  return fc
    .array(
      fc.record({
        role: fc.constantFrom<'user' | 'assistant'>('user', 'assistant'),
        tokenCount: tokenCountArb(options.maxTokens ?? 6_000),
      }),
      {
        maxLength: options.maxLength ?? 14,
      },
    )
    .map((rows) => rows.map((row, i) => ({ id: `m${i}`, ...row })));
}

export function text(content: string): HistoryPart & { readonly content: string } {
  return { type: 'text', content };
}

export function tool(id: string, result: string, name = 'read', args: unknown = {}): ToolResultPart {
  return { type: 'tool', id, name, args, result };
}

export function user(id: string, content = `prompt ${id}`): HistoryMessage {
  return { id, role: 'user', parts: [text(content)] };
}

export function assistant(id: string, parts: readonly HistoryPart[], responseId?: string): HistoryMessage {
  return responseId === undefined ? { id, role: 'assistant', parts } : { id, role: 'assistant', parts, responseId };
}
