/**
 * Plays one session the way FreeCode's loop runs it (engine.md §5) and writes what FreeCode
 * would have written: rollout events as they happen, the session store (rewritten by
 * compactions), `meta.json` and `memory.json`. Every request's recorded usage is the shared
 * cache/token rules applied to the prompt the loop actually sent (provider-prompt.ts).
 *
 * FreeCode behaviour reproduced on purpose:
 * - one `AgentLoop` per user message: `turnId` restarts at `turn-0`, holds and the overflow
 *   counter reset, the measured count starts at 0 (§5.1, §4.4, §13.8);
 * - the compaction check runs after each response with that request's inclusive input as the
 *   measured count (§1.5, §5.3); a compaction trims the store with `keepLastNUserTurns(2)`,
 *   adds the summary block, resets the measured count and is logged as `compact.occurred`
 *   with the memory estimates (§2.4, §6.6);
 * - overflow recovery with `MAX_OVERFLOW_COMPACTIONS = 3` and its three guards (§5.4), with the
 *   project's adopted sequencing: a failed re-send fails the iteration, the loop retries it
 *   (same turn id, counter not reset), and the fourth overflow fails the turn;
 * - a blocked PreCompact hook sets the 5,000-token blocked hold (§4.4, §4.5); FreeCode writes no
 *   rollout event for it, the datasets record `hook.blocked` (dataset convention);
 * - one response stored as a text message plus one message per tool call, usage on the first
 *   (§7.4); store `usage` in the generation's field names (§7.5, §11).
 */
import { CacheSimulator, type CacheUsage } from './cache-sim.js';
import { providerCallId, uuidV4 } from './ids.js';
import { MemoryService } from './memory-service.js';
import { composeResponse, type RunProgress } from './response-composer.js';
import {
  buildPrompt,
  RC3_IDLE_MS,
  RC3_MIN_RESULT_CHARS,
  RC4_CAP_CHARS,
  RC4_MARKER,
  type LegacyPruning,
} from './provider-prompt.js';
import { userPrompt } from './prose.js';
import { Repo } from './repo.js';
import { Rng } from './rng.js';
import { RolloutRecorder, type LineSink } from './rollout.js';
import { keepLastNUserTurns, NEWEST_SELECTION } from './selector.js';
import type { ResponseKind, RunPlan, SessionPlan } from './session-plan.js';
import { formatSessionDirName, metaJson, storeLine, type StorePart, type StoredMessage } from './store.js';
import { renderTurnForMemory, type ToolActivity } from './summarizer.js';
import type { TaskContext } from './task.js';
import { makePaste, makeTask } from './task-factory.js';
import { providerTokens } from './tokens.js';
import { catServiceLog, type ToolInvocation } from './tools.js';

/** FreeCode's numbers (engine.md §1.2, §1.4, §2.1, §3.5, §5.4). */
const OUTPUT_TOKEN_CAP = 32_000;
const COMPACT_TARGET_TOKENS = 120_000;
const AUTO_COMPACT_BUFFER_TOKENS = 13_000;
const MAX_OVERFLOW_COMPACTIONS = 3;
const MAX_TOOL_OUTPUT_CHARS = 4_000;
const TOOL_RESULT_BUDGET_CHARS = 200_000;

/** Figures of a generated session, for the README, the tests and the generator's own checks. */
export interface SessionReport {
  readonly name: string;
  readonly sessionId: string;
  readonly title: string;
  readonly model: string;
  readonly provider: string;
  readonly era: string;
  readonly startMs: number;
  endMs: number;
  userMessages: number;
  steers: number;
  /** Successful provider requests (= `model.response` events). */
  requests: number;
  /** Requests the provider rejected (context overflow). */
  rejectedRequests: number;
  failedTurns: number;
  /** Assistant lines written to the store (before any compaction trimmed them). */
  assistantMessages: number;
  /** Assistant lines by number of tool parts (the §9.1 histogram). */
  readonly toolPartsHistogram: Record<string, number>;
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  peakPromptTokens: number;
  finalPromptTokens: number;
  compactions: number;
  overflowCompactions: number;
  hookBlocks: number;
  /** Runs whose provider-facing copy had the RC3 microcompact applied. */
  microcompactRuns: number;
  /** Requests whose cache read was only the static block (or nothing). */
  staticOnlyReads: number;
  readonly triggerTokens: number;
  readonly staticTokens: number;
  readonly cptHundredths: number;
}

export interface SessionFiles {
  readonly sessionId: string;
  readonly projectDir: string;
  readonly storeLines: readonly string[];
  readonly metaJson: string;
  readonly memoryJson: string | null;
  readonly report: SessionReport;
}

type SendResult =
  | { readonly ok: true; readonly requestMs: number; readonly usage: CacheUsage }
  | { readonly ok: false; readonly promptTokens: number };

type CompactionOutcome = { readonly compacted: boolean; readonly tokensBefore: number };

/** The trigger FreeCode computes for this plan's model (§1.2, §1.4; `window-only` = before the 120K target). */
export function triggerTokensFor(plan: SessionPlan): number {
  const usable = plan.model.windowTokens - Math.min(plan.model.maxOutputTokens, OUTPUT_TOKEN_CAP);
  const limit = plan.compactionTrigger === 'target' ? Math.min(usable, COMPACT_TARGET_TOKENS) : usable;
  return Math.max(0, limit - AUTO_COMPACT_BUFFER_TOKENS);
}

class SessionSimulator {
  private readonly plan: SessionPlan;
  private readonly idsRng: Rng;
  private readonly contentRng: Rng;
  private readonly timeRng: Rng;
  private readonly repo: Repo;
  private readonly rollout: RolloutRecorder;
  private readonly cache: CacheSimulator;
  private readonly memory: MemoryService | null;
  private readonly sessionId: string;
  private readonly report: SessionReport;
  private readonly trigger: number;
  private store: StoredMessage[] = [];
  private summary: { id: string; content: string } | null = null;
  private clock: number;
  private historyCount = 0;
  private responseIndex = 0;
  private lastMeasured = 0;
  private overflowCount = 0;
  private cleared: ReadonlySet<string> = new Set();
  private finalFormTokens: number;
  private plannedResponsesLeft: number;
  private lastUserAppendMs = 0;
  /** Per response, what its results add in full over their truncated form (RC4 shows the last two in full). */
  private readonly fullResultExtra: number[] = [];
  /** Whether the previous response had a tool result longer than the RC4 cap. */
  private lastResponseBig = false;
  private turnCountMeta = 0;
  private readonly createdAt: number;

  constructor(plan: SessionPlan, openRollout: (sessionId: string) => LineSink) {
    this.plan = plan;
    const root = new Rng(plan.seed);
    this.idsRng = root.fork('ids');
    this.contentRng = root.fork('content');
    this.timeRng = root.fork('time');
    this.repo = new Repo(plan.project, root.fork('repo'));
    this.sessionId = uuidV4(this.idsRng, plan.sessionIdPrefix);
    this.rollout = new RolloutRecorder(this.sessionId, this.idsRng, openRollout(this.sessionId));
    this.cache = new CacheSimulator(plan.model.cache);
    this.memory =
      plan.era === 'newest' ? new MemoryService(this.sessionId, root.fork('memory'), NEWEST_SELECTION) : null;
    this.clock = plan.startMs;
    this.createdAt = plan.startMs - this.timeRng.int(400, 3000);
    this.trigger = triggerTokensFor(plan);
    this.finalFormTokens = plan.staticTokens;
    this.plannedResponsesLeft = plan.runs.reduce((n, r) => n + r.responses.length, 0);
    this.report = {
      name: plan.name,
      sessionId: this.sessionId,
      title: plan.title,
      model: plan.model.model,
      provider: plan.model.provider,
      era: plan.era,
      startMs: plan.startMs,
      endMs: plan.startMs,
      userMessages: 0,
      steers: 0,
      requests: 0,
      rejectedRequests: 0,
      failedTurns: 0,
      assistantMessages: 0,
      toolPartsHistogram: {},
      promptTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      peakPromptTokens: 0,
      finalPromptTokens: 0,
      compactions: 0,
      overflowCompactions: 0,
      hookBlocks: 0,
      microcompactRuns: 0,
      staticOnlyReads: 0,
      triggerTokens: this.trigger,
      staticTokens: plan.staticTokens,
      cptHundredths: plan.cptHundredths,
    };
  }

  run(): SessionFiles {
    let task: TaskContext | null = null;
    for (const [r, run] of this.plan.runs.entries()) {
      task = makeTask(this.contentRng, this.repo, task);
      this.userMessage(run, task, r === 0);
      const progress: RunProgress = { changedFiles: new Set(), testsPassed: 0, testsFailed: 0 };
      let turn = 0;
      for (const [i, kind] of run.responses.entries()) {
        const outcome = this.iteration(run, task, `turn-${turn}`, kind, i, progress);
        if (outcome === 'failed') {
          this.report.failedTurns += 1;
          this.plannedResponsesLeft -= run.responses.length - i;
          break;
        }
        turn += 1;
      }
    }
    this.report.endMs = this.clock;
    const storeLines = this.store.map(storeLine);
    const lastStoreMs = this.store[this.store.length - 1]?.timestamp ?? this.clock;
    const meta = metaJson({
      id: this.sessionId,
      title: this.plan.title,
      projectPath: this.plan.project.projectPath,
      provider: this.plan.model.provider,
      model: this.plan.model.model,
      status: 'active',
      createdAt: this.createdAt,
      // Newest stores bump turnCount/lastTurnAt per user entry (§7.2); older ones left turnCount at 0.
      updatedAt: this.plan.era === 'newest' ? this.lastUserAppendMs + 2 : lastStoreMs + 3,
      lastTurnAt: this.plan.era === 'newest' ? this.lastUserAppendMs : this.createdAt,
      turnCount: this.plan.era === 'newest' ? this.turnCountMeta : 0,
    });
    return {
      sessionId: this.sessionId,
      projectDir: formatSessionDirName(this.plan.project.projectPath),
      storeLines,
      metaJson: meta,
      memoryJson: this.memory === null ? null : this.memory.toJson(),
      report: this.report,
    };
  }

  private tick(min: number, max: number): number {
    this.clock += this.timeRng.int(min, max);
    return this.clock;
  }

  private userMessage(run: RunPlan, task: TaskContext, first: boolean): void {
    const previousMs = this.store[this.store.length - 1]?.timestamp ?? null;
    const at = first || previousMs === null ? this.plan.startMs : previousMs + run.idleBeforeMs;
    this.clock = Math.max(this.clock, at);
    const paste = makePaste(this.contentRng, this.repo, task, run.paste, run.pasteChars, this.clock);
    const text =
      run.prompt === undefined
        ? userPrompt(this.contentRng, task, paste, !first)
        : paste === null
          ? run.prompt
          : `${run.prompt}\n\n${paste}`;
    // RC3 (§5.7, project rule): evaluated once per user message against the last history message.
    const cleared = new Set<string>();
    if (this.plan.legacy.microcompact && previousMs !== null && this.clock - previousMs > RC3_IDLE_MS) {
      for (const message of this.store) {
        if (message.parts.some((p) => p.type === 'tool' && p.result.length > RC3_MIN_RESULT_CHARS))
          cleared.add(message.id);
      }
      this.report.microcompactRuns += 1;
    }
    this.cleared = cleared;
    if (this.plan.era === 'newest') this.rollout.checkpointSkipped(this.clock - 2, 'disabled');
    const message: StoredMessage = {
      id: uuidV4(this.idsRng),
      role: 'user',
      parts: [{ type: 'text', content: text }],
      timestamp: this.clock,
      responseIndex: null,
    };
    this.appendStore(message);
    this.lastUserAppendMs = this.clock;
    this.turnCountMeta += 1;
    this.historyCount = this.store.length;
    this.memory?.startRun();
    this.memory?.addMessage('user', text, this.clock + 1);
    this.lastMeasured = 0;
    this.overflowCount = 0;
    this.report.userMessages += 1;
    this.tick(3, 9);
  }

  private appendStore(message: StoredMessage): void {
    this.store.push(message);
    for (const part of message.parts) {
      if (part.type === 'text') this.finalFormTokens += providerTokens(part.content.length, this.plan.cptHundredths);
      else {
        this.finalFormTokens += providerTokens(
          part.tool.name.length + JSON.stringify(part.tool.args).length,
          this.plan.cptHundredths,
        );
        const shown =
          this.plan.legacy.slidingTruncation && part.result.length > RC4_CAP_CHARS
            ? RC4_CAP_CHARS + RC4_MARKER.length
            : part.result.length;
        this.finalFormTokens += providerTokens(shown, this.plan.cptHundredths);
      }
    }
  }

  private legacyView(): LegacyPruning {
    return { slidingTruncation: this.plan.legacy.slidingTruncation, clearedMessageIds: this.cleared };
  }

  /** One loop iteration with overflow recovery; 'failed' ends the run (§5.4). */
  private iteration(
    run: RunPlan,
    task: TaskContext,
    turnId: string,
    kind: ResponseKind,
    index: number,
    progress: RunProgress,
  ): 'ok' | 'failed' {
    let attempt = 0;
    for (;;) {
      attempt += 1;
      if (run.steer !== undefined && run.steer.beforeAttempt === attempt && attempt > 1)
        this.drainSteer(run.steer.text, turnId);
      if (this.plan.era === 'newest') this.rollout.turnStarted(this.clock, turnId);
      let sent = this.send(turnId);
      if (!sent.ok) {
        // compactAndRetry (§5.4): guard 2, increment, compact, context.overflow, guard 3, one re-send.
        if (this.overflowCount >= MAX_OVERFLOW_COMPACTIONS) return 'failed';
        this.overflowCount += 1;
        const outcome = this.runCompaction();
        if (outcome.compacted) this.report.overflowCompactions += 1;
        this.rollout.contextOverflow(this.tick(1, 3), outcome.tokensBefore);
        if (!outcome.compacted) return 'failed';
        this.tick(2, 9);
        sent = this.send(turnId);
        if (!sent.ok) {
          this.tick(40, 400);
          continue;
        }
      }
      this.overflowCount = 0;
      this.respond(run, task, turnId, kind, index, progress, sent.requestMs, sent.usage);
      return 'ok';
    }
  }

  private drainSteer(text: string, turnId: string): void {
    const at = this.tick(2, 6);
    const message: StoredMessage = {
      synthetic: 'steer',
      id: uuidV4(this.idsRng),
      role: 'user',
      parts: [{ type: 'text', content: text }],
      timestamp: at,
      responseIndex: null,
    };
    this.appendStore(message);
    this.historyCount += 1;
    this.turnCountMeta += 1;
    this.lastUserAppendMs = at;
    this.memory?.addMessage('user', text, at + 1);
    this.rollout.messageSteered(this.tick(1, 3), turnId, message.id, 0);
    this.report.steers += 1;
  }

  /** Builds the prompt and sends it: an overflow is rejected before any caching (§5.5). */
  private send(turnId: string): SendResult {
    const newest = this.plan.era === 'newest';
    if (newest) this.rollout.memoryExposure(this.tick(2, this.timeRng.chance(5) ? 1900 : 30), turnId);
    const requestMs = this.tick(2, 8);
    const prompt = buildPrompt(
      this.store,
      this.summary,
      { tokens: this.plan.staticTokens, chars: this.staticChars() },
      this.plan.cptHundredths,
      this.legacyView(),
    );
    const { model } = this.plan;
    this.rollout.modelRequest(
      requestMs,
      turnId,
      model.provider,
      model.model,
      1 + this.historyCount,
      this.plan.toolCount,
      prompt.promptChars,
    );
    const outputReserve = Math.min(model.maxOutputTokens, OUTPUT_TOKEN_CAP);
    if (prompt.promptTokens + outputReserve > model.windowTokens) {
      // The datasets keep overflows unambiguous: a rejected prompt is above the window itself.
      if (prompt.promptTokens <= model.windowTokens * 1.02)
        throw new Error(`${this.plan.name}: ambiguous overflow at ${prompt.promptTokens} tokens`);
      const durationMs = this.timeRng.int(180, 900);
      this.rollout.modelError(
        this.tick(durationMs, durationMs),
        turnId,
        model.provider,
        model.model,
        durationMs,
        model.overflowError(prompt.promptTokens),
      );
      this.report.rejectedRequests += 1;
      return { ok: false, promptTokens: prompt.promptTokens };
    }
    const usage = this.cache.request(prompt.segments, requestMs);
    this.report.requests += 1;
    this.report.promptTokens += usage.promptTokens;
    this.report.cacheReadTokens += usage.cacheReadTokens;
    this.report.cacheWriteTokens += usage.cacheWriteTokens;
    this.report.peakPromptTokens = Math.max(this.report.peakPromptTokens, usage.promptTokens);
    this.report.finalPromptTokens = usage.promptTokens;
    if (usage.cacheReadTokens <= this.plan.staticTokens) this.report.staticOnlyReads += 1;
    this.lastMeasured = usage.promptTokens;
    return { ok: true, requestMs, usage };
  }

  private staticChars(): number {
    // System prompt + dynamic-context text, without the tool schemas (§6.5 promptChars).
    return Math.floor((this.plan.staticTokens * this.plan.cptHundredths * 55) / 10_000);
  }

  private desiredChars(): number {
    const { growth } = this.plan;
    const jitter = this.contentRng.int(40, 160);
    let tokens: number;
    if (growth.kind === 'per-response') tokens = growth.tokens;
    else {
      const remainingRuns = this.plan.runs.slice(this.report.userMessages);
      const futureUserTokens = remainingRuns.reduce(
        (n, r) => n + 110 + providerTokens(r.pasteChars, this.plan.cptHundredths),
        0,
      );
      const recentExtra = this.fullResultExtra.slice(-2).reduce((a, b) => a + b, 0);
      const projected = this.finalFormTokens + futureUserTokens + recentExtra;
      tokens = Math.max(60, (growth.tokens - projected) / Math.max(1, this.plannedResponsesLeft));
    }
    return Math.max(150, Math.floor((tokens * jitter * this.plan.cptHundredths) / 10_000));
  }

  private respond(
    run: RunPlan,
    task: TaskContext,
    turnId: string,
    kind: ResponseKind,
    index: number,
    progress: RunProgress,
    requestMs: number,
    usage: CacheUsage,
  ): void {
    const { model } = this.plan;
    const rng = this.contentRng;
    let composed: { text: string; calls: ToolInvocation[] };
    if (run.hugeResult !== undefined && run.hugeResult.atResponse === index) {
      const pkgDir = task.packageDir.split('/')[1] ?? 'worker';
      const logPath = `logs/nightly/${pkgDir}-${new Date(this.clock - 86_400_000).toISOString().slice(0, 10)}.log`;
      const call = catServiceLog(
        { rng, repo: this.repo, task, nowMs: this.clock, sizeHintChars: run.hugeResult.chars },
        logPath,
        run.hugeResult.chars,
        this.clock - this.timeRng.int(30_000_000, 50_000_000),
      );
      composed = {
        text:
          kind === 'tool'
            ? ''
            : `The nightly run wrote everything to ${logPath}; let me read the whole log to see where the ${task.concept} starts failing.`,
        calls: [call],
      };
    } else {
      const resultChars = this.visibleResultChars();
      const parallel = run.parallelCalls && resultChars < TOOL_RESULT_BUDGET_CHARS / 2;
      composed = composeResponse({
        rng,
        repo: this.repo,
        task,
        kind,
        index,
        count: run.responses.length,
        desiredChars: this.desiredChars(),
        resultsTruncated: this.plan.legacy.slidingTruncation,
        nowMs: this.clock,
        maxCalls: parallel ? 3 : 1,
        progress,
        minResultChars: this.rc4NeedsLongResult(run, index) ? RC4_CAP_CHARS : 0,
      });
    }
    this.plannedResponsesLeft -= 1;
    const { text, calls } = composed;
    this.lastResponseBig = calls.some((c) => c.result.length > RC4_CAP_CHARS);
    const cpt = this.plan.cptHundredths;
    this.fullResultExtra.push(
      calls.reduce(
        (n, c) =>
          n +
          (c.result.length > RC4_CAP_CHARS
            ? providerTokens(c.result.length, cpt) - providerTokens(RC4_CAP_CHARS + RC4_MARKER.length, cpt)
            : 0),
        0,
      ),
    );
    const visibleChars = text.length + calls.reduce((n, c) => n + c.name.length + JSON.stringify(c.args).length, 0);
    const reasoningTokens = model.reasoning ? this.timeRng.skewed(0, 1800) : undefined;
    const outputTokens = Math.max(1, providerTokens(visibleChars, this.plan.cptHundredths)) + (reasoningTokens ?? 0);
    const uncachedWork = usage.promptTokens - usage.cacheReadTokens;
    const ttftMs = this.timeRng.int(450, 1800) + Math.floor(uncachedWork / this.timeRng.int(25, 60));
    const [tpsMin, tpsMax] = model.outputTokensPerSecond;
    const durationMs = ttftMs + Math.ceil((outputTokens * 1000) / this.timeRng.int(tpsMin, tpsMax));
    this.rollout.firstToken(requestMs + ttftMs, turnId, ttftMs);
    const responseMs = requestMs + durationMs;
    this.clock = responseMs;
    const aug = this.plan.era === 'aug';
    this.rollout.modelResponse(
      responseMs,
      turnId,
      model.provider,
      model.model,
      durationMs,
      ttftMs,
      {
        inputTokens: usage.promptTokens,
        outputTokens,
        cacheReadTokens: usage.cacheReadTokens,
        cacheWriteTokens: model.reportsCacheWrites ? usage.cacheWriteTokens : undefined,
        reasoningTokens,
      },
      calls.map((c) => c.name),
      text.length,
    );
    this.report.outputTokens += outputTokens;
    if (aug) this.rollout.turnStarted(this.tick(1, 4), turnId);
    const responseIndex = this.responseIndex++;
    let usagePending: Record<string, number> | undefined = this.storeUsage(usage, outputTokens, reasoningTokens);
    if (text !== '' || calls.length === 0) {
      const message: StoredMessage = {
        id: uuidV4(this.idsRng),
        role: 'assistant',
        parts: [{ type: 'text', content: text }],
        timestamp: this.tick(5, 40),
        responseIndex,
      };
      if (usagePending !== undefined) message.usage = usagePending;
      usagePending = undefined;
      this.appendStore(message);
      this.countAssistant(0);
    }
    const activity: ToolActivity[] = [];
    for (const call of calls) {
      const callId = aug ? undefined : providerCallId(model.callIdStyle, this.idsRng);
      if (!aug) this.rollout.hookTriggered(this.tick(20, 70), call.name);
      const callMs = this.tick(10, 60);
      this.rollout.functionCall(callMs, turnId, call.name, call.args, callId);
      const outMs = this.tick(call.durationMs, call.durationMs);
      this.rollout.functionOutput(
        outMs,
        turnId,
        call.name,
        call.result,
        call.durationMs,
        aug ? undefined : call.failed,
        callId,
      );
      const part: StorePart = { type: 'tool', tool: { name: call.name, args: call.args }, result: call.result };
      const message: StoredMessage = {
        id: uuidV4(this.idsRng),
        role: 'assistant',
        parts: [part],
        timestamp: this.tick(1, 4),
        responseIndex,
      };
      if (usagePending !== undefined) message.usage = usagePending;
      usagePending = undefined;
      this.appendStore(message);
      this.countAssistant(1);
      activity.push({
        tool: call.name,
        args: call.args,
        output: call.failed ? '' : call.result,
        error: call.failed ? call.result : undefined,
      });
    }
    this.historyCount += 1;
    if (this.memory !== null) {
      const memoryText = calls.length === 0 ? text : renderTurnForMemory(text, activity, MAX_TOOL_OUTPUT_CHARS);
      this.memory.addMessage('assistant', memoryText, this.tick(1, 5));
    }
    this.maybeCompact();
    this.tick(2, 12);
  }

  /**
   * Under RC4 a prompt whose two most recent responses carry no result above the cap shows every
   * older result already in its final, truncated form, so it stays a prefix of every later prompt
   * and, refreshed on every hit, anchors the cache for the rest of the run. In the sessions this
   * reproduces, nearly every response's output (file reads, test runs, edit echoes) was longer than
   * the cap, which is why the prefix was rewritten at every request (engine.md §9.2). The generator
   * keeps that property: no two consecutive responses without a long result, and long results in
   * 92% of the other responses.
   */
  private rc4NeedsLongResult(run: RunPlan, index: number): boolean {
    if (!this.plan.legacy.slidingTruncation) return false;
    return !this.lastResponseBig || run.responses[index + 1] === 'text' || this.contentRng.chance(92);
  }

  /** Store `usage` in the generation's field names (§7.5), or none before 2026-08-05. */
  private storeUsage(
    usage: CacheUsage,
    outputTokens: number,
    reasoningTokens: number | undefined,
  ): Record<string, number> | undefined {
    const { storeUsage, model } = this.plan;
    if (storeUsage === 'none') return undefined;
    const out: Record<string, number> = {
      inputTokens: usage.promptTokens,
      outputTokens,
      cacheReadInputTokens: usage.cacheReadTokens,
    };
    if (model.reportsCacheWrites)
      out[storeUsage === 'creation' ? 'cacheCreationInputTokens' : 'cacheWriteInputTokens'] = usage.cacheWriteTokens;
    if (reasoningTokens !== undefined && storeUsage === 'write') out['reasoningTokens'] = reasoningTokens;
    return out;
  }

  private countAssistant(toolParts: number): void {
    this.report.assistantMessages += 1;
    const key = String(toolParts);
    this.report.toolPartsHistogram[key] = (this.report.toolPartsHistogram[key] ?? 0) + 1;
  }

  private visibleResultChars(): number {
    let chars = 0;
    for (const m of this.store) for (const p of m.parts) if (p.type === 'tool') chars += p.result.length;
    return chars;
  }

  /** §5.3 `maybeCompact`: after each response, with the last request's inclusive input as the measured count. */
  private maybeCompact(): void {
    if (this.memory === null) {
      // Older generations: the window-only trigger is never reached by the datasets (checked here).
      if (this.lastMeasured >= this.trigger)
        throw new Error(`${this.plan.name}: an ${this.plan.era} session reached its compaction trigger`);
      return;
    }
    if (this.memory.shouldCompact(this.lastMeasured, this.trigger)) this.runCompaction();
  }

  /** §5.3 `runCompaction` through `applyCompaction` (§2.4). */
  private runCompaction(): CompactionOutcome {
    const memory = this.memory;
    if (memory === null) throw new Error(`${this.plan.name}: compaction in a session without a memory service`);
    const hook = this.plan.preCompactHook;
    const started = this.tick(3, 20);
    const outcome = memory.compact(
      () => (hook.kind === 'block' ? { allowed: false, reason: hook.reason } : { allowed: true }),
      started,
    );
    switch (outcome.kind) {
      case 'nothing':
        return { compacted: false, tokensBefore: outcome.tokensBefore };
      case 'blocked':
        this.rollout.hookBlocked(this.tick(40, 400), 'PreCompact', outcome.reason);
        this.report.hookBlocks += 1;
        return { compacted: false, tokensBefore: outcome.tokensBefore };
      case 'compacted': {
        const kept = keepLastNUserTurns(this.store, NEWEST_SELECTION.preserveRecentTurns);
        if (kept.length < this.store.length) this.store = kept;
        this.historyCount = this.store.length;
        this.lastMeasured = 0;
        this.summary = { id: outcome.summary.id, content: outcome.summary.content };
        this.rollout.compactOccurred(this.tick(4, 12), outcome.tokensBefore, outcome.tokensAfter);
        this.report.compactions += 1;
        return { compacted: true, tokensBefore: outcome.tokensBefore };
      }
      default: {
        const unreachable: never = outcome;
        return unreachable;
      }
    }
  }
}

/**
 * Simulates one session. Rollout lines go, as they happen, to the sink `openRollout` returns for
 * the session id; the store, meta and memory files are returned (compactions rewrite the store).
 */
export function simulateSession(plan: SessionPlan, openRollout: (sessionId: string) => LineSink): SessionFiles {
  return new SessionSimulator(plan, openRollout).run();
}
