/**
 * A small builder of normalized sessions for replay tests: chars are given directly so that,
 * with one token per character, every prompt size can be computed by hand.
 */
import type { Item, MeasuredUsage, Request, Session } from '../../src/session/model.js';

/** When every built session starts. */
export const SESSION_T0 = Date.UTC(2026, 9, 1, 9, 0, 0);

export class SessionBuilder {
  protected readonly items: Item[] = [];
  protected readonly requests: Request[] = [];
  protected readonly events: Session['events'] = [];
  protected nowMs = SESSION_T0;
  protected seq = 0;

  constructor(
    protected readonly id = 's1',
    protected readonly model = 'claude-sonnet-4-5',
  ) {}

  /** Advances the clock. */
  wait(ms: number): this {
    this.nowMs += ms;
    return this;
  }

  user(chars = 100, synthetic: string | null = null): this {
    const id = `u${++this.seq}`;
    this.items.push({
      kind: 'user',
      id,
      timestampMs: this.nowMs,
      text: 'p'.repeat(chars),
      chars,
      imageParts: 0,
      imageChars: 0,
      synthetic,
    });
    return this;
  }

  /** A request followed by its response: an assistant message and, optionally, one tool call with its result. */
  request(opts: {
    textChars: number;
    tool?: { argsChars: number; resultChars: number };
    usage?: MeasuredUsage;
    outputTokens?: number;
  }): this {
    const index = this.requests.length;
    const usage = opts.usage ?? null;
    this.requests.push({
      index,
      itemIndex: this.items.length,
      model: this.model,
      provider: 'anthropic',
      timestampMs: this.nowMs,
      usage,
      agentId: null,
    });
    const responseId = `r${index}`;
    const toolCalls =
      opts.tool === undefined
        ? []
        : [{ callId: `c${index}`, name: 'bash', argsJson: 'a'.repeat(Math.max(0, opts.tool.argsChars - 4)) }];
    const callChars = toolCalls.reduce((sum, call) => sum + call.name.length + call.argsJson.length, 0);
    this.nowMs += 2_000;
    this.items.push({
      kind: 'assistant',
      id: `a${++this.seq}`,
      timestampMs: this.nowMs,
      text: 't'.repeat(opts.textChars),
      chars: opts.textChars + callChars,
      imageParts: 0,
      imageChars: 0,
      responseId,
      toolCalls,
      thinkingChars: 0,
    });
    if (opts.tool !== undefined) {
      this.nowMs += 1_000;
      this.items.push({
        kind: 'tool_result',
        id: `t${++this.seq}`,
        timestampMs: this.nowMs,
        text: 'o'.repeat(opts.tool.resultChars),
        chars: opts.tool.resultChars,
        imageParts: 0,
        imageChars: 0,
        callId: `c${index}`,
        toolName: 'bash',
        failed: false,
      });
    }
    return this;
  }

  build(): Session {
    return {
      id: this.id,
      source: 'freecode',
      title: null,
      project: null,
      files: [],
      items: [...this.items],
      requests: [...this.requests],
      events: [...this.events],
      issues: [],
      parentSessionId: null,
      totalsOnly: null,
    };
  }
}
