/**
 * The recorded replay walked once and priced per calibration (recorded-trace.ts) against a walk
 * per calibration (`replaySession`): the same result, row for row and compaction for compaction,
 * on generated sessions (compactions recorded with and without a chain restart, refused sends,
 * side requests, a second model, images, unmeasured requests) under every recorded-policy
 * candidate, random calibrations (per-model static blocks, restored blocks) and cache facts, with
 * and without FreeCode's reload break; and on the bundled FreeCode dataset under its own fit.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/index.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import type { Item, MeasuredUsage, Session } from '../../src/session/model.js';
import type { TokenCalibration } from '../../src/simulate/calibrate.js';
import { modelFactsFor } from '../../src/simulate/model-facts.js';
import {
  NO_PRUNING_POLICY,
  PREFIX_STABLE_AUG_POLICY,
  PREFIX_STABLE_NEWEST_POLICY,
  SLIDING_LEGACY_POLICY,
} from '../../src/simulate/recorded-policy.js';
import type { TracePricing } from '../../src/simulate/recorded-trace.js';
import { priceRecordedTrace, traceRecordedReplay, tracedSends } from '../../src/simulate/recorded-trace.js';
import type { ModelFacts, ReplayInput } from '../../src/simulate/replay.js';
import { replaySession } from '../../src/simulate/replay.js';
import { ReplayMemo } from '../../src/simulate/replay-memo.js';
import { buildScenarios, familyDefaults } from '../../src/simulate/scenario.js';
import { simulateSession } from '../../src/simulate/simulate-session.js';
import { forEachSession } from '../../src/usecases/for-each-session.js';
import { SessionBuilder } from './session-builder.js';

const RECORDED = { name: 'recorded', family: 'recorded' as const, params: familyDefaults('recorded') };
const POLICIES = [PREFIX_STABLE_NEWEST_POLICY, PREFIX_STABLE_AUG_POLICY, SLIDING_LEGACY_POLICY, NO_PRUNING_POLICY];
const SECOND_MODEL = 'claude-haiku-4-5';

const anthropicFacts: ModelFacts = {
  contextWindowTokens: 200_000,
  maxOutputTokens: 32_000,
  rules: CACHE_RULES.anthropic,
};
const openaiFacts: ModelFacts = { contextWindowTokens: 200_000, maxOutputTokens: 32_000, rules: CACHE_RULES.openai };

type Step =
  | { kind: 'turn'; user: number; synthetic: boolean; calls: number; result: number; images: number; gapMs: number }
  | { kind: 'compaction'; summary: number | null; restart: boolean }
  | { kind: 'overflow' }
  | { kind: 'side' }
  | { kind: 'switch' };

/** A session builder that also records compactions, refusals, side requests and model switches. */
class EventfulBuilder extends SessionBuilder {
  private current: string;
  private lastId: string | null = null;

  constructor(private readonly measured: boolean) {
    super('trace', 'claude-sonnet-4-5');
    this.current = this.model;
  }

  step(step: Step): this {
    switch (step.kind) {
      case 'turn': {
        this.wait(step.gapMs);
        const userId = `u${++this.seq}`;
        this.push({
          kind: 'user',
          id: userId,
          timestampMs: this.nowMs,
          text: 'p'.repeat(step.user),
          chars: step.user + step.images * 400,
          imageParts: step.images,
          imageChars: step.images * 400,
          synthetic: step.synthetic ? 'auto_poke' : null,
        });
        for (let call = 0; call <= step.calls; call++) this.respond(call < step.calls ? step.result + call * 37 : null);
        return this;
      }
      case 'compaction': {
        const summaryId = `s${++this.seq}`;
        this.events.push({
          kind: 'compaction',
          itemIndex: this.items.length,
          requestIndex: this.requests.length,
          timestampMs: this.nowMs,
          trigger: 'auto',
          tokensBefore: null,
          tokensAfter: null,
          tokenUnit: 'estimate',
          summaryItemId: step.summary === null ? null : summaryId,
        });
        if (step.summary !== null) {
          const item: Item = {
            kind: 'summary',
            id: summaryId,
            timestampMs: this.nowMs,
            text: null,
            chars: step.summary,
            imageParts: 0,
            imageChars: 0,
            ...(step.restart ? { parentId: null } : {}),
          };
          this.items.push(item);
          if (step.restart) this.lastId = summaryId;
        }
        return this;
      }
      case 'overflow':
        this.events.push({
          kind: 'model_error',
          itemIndex: this.items.length,
          requestIndex: this.requests.length,
          timestampMs: this.nowMs,
          errorKind: 'invalid_request_error',
          message: 'prompt is too long: 250000 tokens > 200000 maximum',
        });
        return this;
      case 'side':
        this.requests.push({
          index: this.requests.length,
          itemIndex: this.items.length,
          model: SECOND_MODEL,
          provider: 'anthropic',
          timestampMs: this.nowMs,
          usage: usage(3_000, 700, 40),
          agentId: 'agent-1',
        });
        return this;
      case 'switch':
        this.current = this.current === this.model ? SECOND_MODEL : this.model;
        return this;
      default: {
        const unreachable: never = step;
        return unreachable;
      }
    }
  }

  private push(item: Item): void {
    this.items.push({ ...item, parentId: this.lastId });
    this.lastId = item.id;
  }

  /** A request and its response: text, and a call with its result when `result` is not null. */
  private respond(result: number | null): void {
    const index = this.requests.length;
    const measured = this.measured && index % 5 !== 3;
    this.requests.push({
      index,
      itemIndex: this.items.length,
      model: this.current,
      provider: 'anthropic',
      timestampMs: this.nowMs,
      usage: measured ? usage(8_000 + index * 900, index % 2 === 0 ? 5_000 : 0, 120) : null,
      agentId: null,
    });
    this.nowMs += 1_500;
    const toolCalls = result === null ? [] : [{ callId: `c${index}`, name: 'bash', argsJson: `{"cmd":"ls ${index}"}` }];
    const callChars = toolCalls.reduce((sum, call) => sum + call.name.length + call.argsJson.length, 0);
    this.push({
      kind: 'assistant',
      id: `a${++this.seq}`,
      timestampMs: this.nowMs,
      text: 't'.repeat(60),
      chars: 60 + callChars,
      imageParts: 0,
      imageChars: 0,
      responseId: `r${index}`,
      toolCalls,
      thinkingChars: 0,
    });
    if (result !== null) {
      this.nowMs += 500;
      this.push({
        kind: 'tool_result',
        id: `t${++this.seq}`,
        timestampMs: this.nowMs,
        text: 'o'.repeat(result),
        chars: result,
        imageParts: 0,
        imageChars: 0,
        callId: `c${index}`,
        toolName: 'bash',
        failed: index % 7 === 0,
      });
    }
  }
}

function usage(prompt: number, read: number, output: number): MeasuredUsage {
  const write = Math.max(0, prompt - read - 100);
  const oneHour = Math.floor(write / 3);
  return {
    promptTokens: prompt,
    uncachedInputTokens: prompt - read - write,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    cacheWrite5mTokens: write - oneHour,
    cacheWrite1hTokens: oneHour,
    outputTokens: output,
    reasoningTokens: null,
  };
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('turn' as const),
      user: fc.integer({ min: 1, max: 2_000 }),
      synthetic: fc.boolean(),
      calls: fc.integer({ min: 0, max: 3 }),
      result: fc.integer({ min: 0, max: 30_000 }),
      images: fc.integer({ min: 0, max: 1 }),
      gapMs: fc.integer({ min: 0, max: 900_000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('compaction' as const),
      summary: fc.option(fc.integer({ min: 0, max: 5_000 })),
      restart: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'overflow' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'side' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'switch' as const }) },
);

const calibrationArb: fc.Arbitrary<TokenCalibration> = fc
  .record({
    tokensPerChar: fc.double({ min: 1 / 12, max: 1, noNaN: true }),
    staticBlockTokens: fc.integer({ min: 0, max: 20_000 }),
    source: fc.constant('fitted' as const),
    points: fc.constant(10),
    restoredTokens: fc.array(fc.integer({ min: 0, max: 9_000 }), { maxLength: 4 }),
    staticBlockTokensByModel: fc.option(fc.record({ [SECOND_MODEL]: fc.integer({ min: 0, max: 30_000 }) }), {
      nil: undefined,
    }),
  })
  .map(({ staticBlockTokensByModel, ...rest }) =>
    staticBlockTokensByModel === undefined ? rest : { ...rest, staticBlockTokensByModel },
  );

const pricingArb = fc.record({
  calibration: calibrationArb,
  warmStaticTokens: fc.integer({ min: 0, max: 15_000 }),
  keepPrompts: fc.boolean(),
  reloadBreaks: fc.boolean(),
  transientMissRate: fc.option(fc.double({ min: 0, max: 0.5, noNaN: true }), { nil: undefined }),
});

describe('recorded trace', () => {
  it('priced under any calibration, gives the rows a walk under that calibration gives', () => {
    fc.assert(
      fc.property(
        fc.array(stepArb, { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        fc.constantFrom(...POLICIES),
        fc.boolean(),
        fc.array(pricingArb, { minLength: 1, maxLength: 3 }),
        (steps, measured, recordedPolicy, automatic, pricings) => {
          const builder = new EventfulBuilder(measured);
          for (const step of steps) builder.step(step);
          const session = builder.build();
          const input: ReplayInput = {
            session,
            scenario: RECORDED,
            calibration: { tokensPerChar: 0.25, staticBlockTokens: 12_000, source: 'defaults', points: 0 },
            recordedPolicy,
            modelFacts: () => (automatic ? openaiFacts : anthropicFacts),
            preCompactHookBlocks: false,
          };
          const memo = new ReplayMemo();
          const trace = traceRecordedReplay(input, memo, true);
          for (const pricing of pricings) {
            const given: TracePricing = {
              calibration: pricing.calibration,
              warmStaticTokens: pricing.warmStaticTokens,
              keepPrompts: pricing.keepPrompts,
              reloadBreaks: pricing.reloadBreaks,
              ...(pricing.transientMissRate === undefined ? {} : { transientMissRate: pricing.transientMissRate }),
            };
            const walked = replaySession({ ...input, ...given });
            expect(priceRecordedTrace(trace, given, memo)).toEqual(walked);
            // The calibration's inputs and the prompts the fit compares, sized without pricing: those of the walk's request rows.
            expect(tracedSends(trace, pricing.calibration, memo)).toEqual(
              walked.rows
                .filter(
                  (row) =>
                    row.kind === 'request' &&
                    row.sourceRequestIndex !== null &&
                    session.requests[row.sourceRequestIndex]?.agentId === null,
                )
                .map(({ sourceRequestIndex, promptTokens, visibleChars, visibleUnits, fixedTokens }) => ({
                  sourceRequestIndex,
                  promptTokens,
                  visibleChars,
                  visibleUnits,
                  fixedTokens,
                })),
            );
          }
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it('walked without reload copies, refuses to price the reload break', () => {
    const session = new SessionBuilder().user(10).request({ textChars: 5 }).build();
    const input: ReplayInput = {
      session,
      scenario: RECORDED,
      calibration: { tokensPerChar: 0.25, staticBlockTokens: 100, source: 'defaults', points: 0 },
      recordedPolicy: PREFIX_STABLE_NEWEST_POLICY,
      modelFacts: () => anthropicFacts,
      preCompactHookBlocks: false,
    };
    const memo = new ReplayMemo();
    const trace = traceRecordedReplay(input, memo, false);
    expect(() => priceRecordedTrace(trace, { calibration: input.calibration, reloadBreaks: true }, memo)).toThrow(
      /reload/,
    );
  });
});

describe('recorded trace on the bundled FreeCode dataset', () => {
  const sessions: Session[] = [];
  const prices = loadBundledPriceTable();

  beforeAll(async () => {
    await forEachSession([join(import.meta.dirname, '..', '..', 'datasets', 'freecode')], { content: 'text' }, (s) => {
      sessions.push(s);
    });
  }, 120_000);

  it("priced under each session's own fit, gives the walk's rows", () => {
    expect(sessions.length).toBeGreaterThan(3);
    const [recorded] = buildScenarios([], {});
    if (recorded === undefined) throw new Error('no recorded scenario');
    for (const session of sessions) {
      const modelFacts = modelFactsFor(prices, session.requests[0]?.provider ?? null);
      const simulation = simulateSession(session, [recorded], { modelFacts });
      const input: ReplayInput = {
        session,
        scenario: recorded,
        calibration: simulation.calibration,
        recordedPolicy: simulation.recordedPolicy,
        modelFacts,
        preCompactHookBlocks: false,
        warmStaticTokens: simulation.warmStaticTokens,
      };
      const memo = new ReplayMemo();
      const trace = traceRecordedReplay(input, memo, true);
      for (const reloadBreaks of [false, true]) {
        expect(
          priceRecordedTrace(
            trace,
            { calibration: simulation.calibration, warmStaticTokens: simulation.warmStaticTokens, reloadBreaks },
            memo,
          ),
          `${session.id} reload ${reloadBreaks}`,
        ).toEqual(replaySession({ ...input, reloadBreaks }));
      }
    }
  }, 300_000);
});
