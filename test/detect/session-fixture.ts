/**
 * A small builder of normalized sessions with measured usage and harness events, for tests of
 * the recorded trace and of whole-session detection.
 */
import type { MeasuredUsage } from '../../src/session/model.js';
import { SESSION_T0, SessionBuilder } from '../simulate/session-builder.js';

export { SESSION_T0 };

export function usage(prompt: number, read = 0, write = 0, output = 100): MeasuredUsage {
  return {
    promptTokens: prompt,
    uncachedInputTokens: prompt - read - write,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    cacheWrite5mTokens: null,
    cacheWrite1hTokens: null,
    outputTokens: output,
    reasoningTokens: null,
  };
}

/** The shared builder, plus measured requests and harness events. */
export class SessionFixture extends SessionBuilder {
  /** A request (measured when `measured` is given) and its text response of `chars` characters. */
  send(measured: MeasuredUsage | null, chars = 400, agentId: string | null = null): this {
    const index = this.requests.length;
    this.requests.push({
      index,
      itemIndex: this.items.length,
      model: this.model,
      provider: 'anthropic',
      timestampMs: this.nowMs,
      usage: measured,
      agentId,
    });
    this.nowMs += 2_000;
    this.items.push({
      kind: 'assistant',
      id: `a${++this.seq}`,
      timestampMs: this.nowMs,
      text: 't'.repeat(chars),
      chars,
      imageParts: 0,
      imageChars: 0,
      responseId: `r${index}`,
      toolCalls: [],
      thinkingChars: 0,
    });
    this.nowMs += 1_000;
    return this;
  }

  private at(): { itemIndex: number; requestIndex: number; timestampMs: number } {
    return { itemIndex: this.items.length, requestIndex: this.requests.length, timestampMs: this.nowMs };
  }

  compaction(tokensBefore: number | null, tokensAfter: number | null, trigger: 'auto' | 'overflow' = 'auto'): this {
    this.events.push({
      kind: 'compaction',
      ...this.at(),
      trigger,
      tokensBefore,
      tokensAfter,
      tokenUnit: 'estimate',
      summaryItemId: null,
    });
    return this;
  }

  hookBlock(hookName = 'PreCompact'): this {
    this.events.push({ kind: 'hook_block', ...this.at(), hookName, reason: 'pinned' });
    return this;
  }

  overflowError(): this {
    this.events.push({
      kind: 'model_error',
      ...this.at(),
      errorKind: 'provider',
      message: 'prompt is too long: 210000 tokens > 200000 maximum',
    });
    return this;
  }
}
