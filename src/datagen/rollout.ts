/**
 * The rollout log (`rollout/sessions/<id>/events.jsonl`, engine.md §6): one flat JSON event per
 * line, key order `type, id, seq, aggregateID, timestamp`, then the recorder's whitelisted extras
 * in their fixed order, then the caller's fields (§6.1), as in the §12.1 example. `seq` counts
 * lines (one recorder per user message resumes from the line count, so it is contiguous here).
 */
import { rolloutEventId } from './ids.js';
import type { Rng } from './rng.js';

export interface LineSink {
  write(line: string): void;
}

type Body = Record<string, unknown>;

export interface ResponseUsageFields {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  /** Omitted (undefined) for providers that report no write counter (OpenAI-style, DeepSeek). */
  readonly cacheWriteTokens: number | undefined;
  readonly reasoningTokens: number | undefined;
}

export class RolloutRecorder {
  private seq = 0;
  private readonly sessionId: string;
  private readonly rng: Rng;
  private readonly sink: LineSink;
  /** Events written, by type (for the generator's own checks). */
  readonly counts = new Map<string, number>();

  constructor(sessionId: string, rng: Rng, sink: LineSink) {
    this.sessionId = sessionId;
    this.rng = rng;
    this.sink = sink;
  }

  private emit(type: string, timestampMs: number, body: Body): void {
    this.seq += 1;
    const event: Body = {
      type,
      id: rolloutEventId(timestampMs, this.rng),
      seq: this.seq,
      aggregateID: this.sessionId,
      timestamp: timestampMs,
      ...body,
    };
    this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
    this.sink.write(`${JSON.stringify(event)}\n`);
  }

  turnStarted(at: number, turnId: string): void {
    this.emit('turn.started', at, { turnId });
  }

  checkpointSkipped(at: number, reason: string): void {
    this.emit('checkpoint.skipped', at, { reason });
  }

  memoryExposure(at: number, turnId: string): void {
    this.emit('memory.exposure', at, {
      turnId,
      blockBytes: 0,
      estimatedTokens: 0,
      candidateCount: 0,
      renderedCount: 0,
      fullCount: 0,
      summaryCount: 0,
      injected: false,
      preparation: 'empty',
      judgeDecision: 'no_candidates',
    });
  }

  modelRequest(
    at: number,
    turnId: string,
    provider: string,
    model: string,
    messageCount: number,
    toolCount: number,
    promptChars: number,
  ): void {
    this.emit('model.request', at, { turnId, provider, model, messageCount, toolCount, promptChars, streamed: true });
  }

  firstToken(at: number, turnId: string, ttftMs: number): void {
    this.emit('model.first_token', at, { turnId, ttft_ms: ttftMs });
  }

  modelResponse(
    at: number,
    turnId: string,
    provider: string,
    model: string,
    durationMs: number,
    ttftMs: number,
    usage: ResponseUsageFields,
    toolCalls: readonly string[],
    textChars: number,
  ): void {
    const body: Body = {
      turnId,
      provider,
      model,
      duration_ms: durationMs,
      ttft_ms: ttftMs,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens,
    };
    if (usage.cacheWriteTokens !== undefined) body['cacheWriteTokens'] = usage.cacheWriteTokens;
    if (usage.reasoningTokens !== undefined) body['reasoningTokens'] = usage.reasoningTokens;
    body['toolCalls'] = toolCalls;
    body['textChars'] = textChars;
    body['thinkingChars'] = 0;
    this.emit('model.response', at, body);
  }

  modelError(at: number, turnId: string, provider: string, model: string, durationMs: number, error: string): void {
    this.emit('model.error', at, { turnId, provider, model, duration_ms: durationMs, kind: 'provider', error });
  }

  hookTriggered(at: number, tool: string): void {
    this.emit('hook.triggered', at, { hookName: tool, hookEvent: 'PreToolUse', blocked: false });
  }

  functionCall(at: number, turnId: string, tool: string, args: unknown, callId: string | undefined): void {
    const body: Body = { turnId, tool, args };
    if (callId !== undefined) body['callId'] = callId;
    this.emit('function.call', at, body);
  }

  functionOutput(
    at: number,
    turnId: string,
    tool: string,
    output: string,
    durationMs: number,
    failed: boolean | undefined,
    callId: string | undefined,
  ): void {
    const body: Body = { turnId, tool, output, duration_ms: durationMs };
    if (failed !== undefined) body['failed'] = failed;
    if (callId !== undefined) body['callId'] = callId;
    this.emit('function.output', at, body);
  }

  compactOccurred(at: number, beforeTokens: number, afterTokens: number): void {
    this.emit('compact.occurred', at, { beforeTokens, afterTokens });
  }

  contextOverflow(at: number, beforeTokens: number): void {
    this.emit('context.overflow', at, { beforeTokens });
  }

  /** Dataset convention: FreeCode writes no rollout event for a PreCompact block; the datasets record one. */
  hookBlocked(at: number, hookName: string, reason: string): void {
    this.emit('hook.blocked', at, { hookName, reason });
  }

  messageSteered(at: number, turnId: string, messageId: string, remaining: number): void {
    this.emit('message.steered', at, { turnId, messageId, remaining });
  }
}
