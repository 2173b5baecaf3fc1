import { describe, expect, it } from 'vitest';
import { recordedTrace, scenarioTrace } from '../../src/detect/trace.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import type { ModelFacts, ReplayResult } from '../../src/simulate/replay.js';
import { familyDefaults } from '../../src/simulate/scenario.js';
import { SessionFixture, usage } from './session-fixture.js';
import { rowsOf, requests } from './trace-fixture.js';

const FACTS: ModelFacts = { contextWindowTokens: 1_000_000, maxOutputTokens: 128_000, rules: CACHE_RULES.anthropic };
const EMPTY: ReplayResult = { rows: [], compactions: [], overflows: 0, failedTurns: 0, summarizeRequests: 0 };

describe('the recorded trace', () => {
  it('takes measured usage where the log has it and the recorded replay where it does not', () => {
    const session = new SessionFixture()
      .user()
      .send(usage(10_000, 0, 10_000))
      .send(null)
      .build();
    const replay: ReplayResult = {
      ...EMPTY,
      rows: rowsOf(requests([{ prompt: 9_000 }, { prompt: 10_500, read: 10_000 }])),
    };
    const trace = recordedTrace(session, replay, FACTS);
    expect(trace.requests.map((r) => [r.requestIndex, r.promptTokens, r.basis])).toEqual([
      [0, 10_000, 'measured'],
      [1, 10_500, 'simulated'],
    ]);
    // The usable window: 1,000,000 minus the 32,000-token output cap (engine.md §1.4).
    expect(trace).toMatchObject({
      scenario: 'recorded',
      windowTokens: 1_000_000,
      usableWindowTokens: 968_000,
      userMessages: 1,
      requestCount: 2,
    });
  });

  it('a compaction event: the measured prompt before and after, estimates from the event, compactionBefore on the next request', () => {
    const session = new SessionFixture()
      .user()
      .send(usage(108_000))
      .compaction(20_000, 5_000)
      .send(usage(30_000))
      .build();
    const trace = recordedTrace(session, EMPTY, FACTS);
    expect(trace.compactions).toEqual([
      {
        requestIndex: 1,
        userTurn: 1,
        trigger: 'threshold',
        outcome: 'compacted',
        promptTokensBefore: 108_000,
        promptTokensAfter: 30_000,
        estimateTokensBefore: 20_000,
        estimateTokensAfter: 5_000,
      },
    ]);
    expect(trace.requests.map((r) => r.compactionBefore)).toEqual([false, true]);
  });

  it('two compactions at one point: neither is given a measurement that describes the other', () => {
    const session = new SessionFixture()
      .user()
      .send(usage(108_000))
      .compaction(20_000, 5_000)
      .compaction(5_000, 4_000)
      .send(usage(30_000))
      .build();
    const [first, second] = recordedTrace(session, EMPTY, FACTS).compactions;
    expect([first?.promptTokensBefore, first?.promptTokensAfter]).toEqual([108_000, null]);
    expect([second?.promptTokensBefore, second?.promptTokensAfter]).toEqual([null, 30_000]);
  });

  it('a PreCompact block is a blocked attempt at the last measured context; other hook blocks are not', () => {
    const session = new SessionFixture()
      .user()
      .send(usage(110_000))
      .hookBlock()
      .hookBlock('bash')
      .send(usage(112_000))
      .build();
    expect(recordedTrace(session, EMPTY, FACTS).compactions).toMatchObject([
      { outcome: 'blocked', promptTokensBefore: 110_000, requestIndex: 1 },
    ]);
  });

  it('overflow errors are refused sends; a turn fails when none of its requests is sent after the last one', () => {
    const recovered = new SessionFixture()
      .user()
      .send(usage(190_000))
      .overflowError()
      .compaction(30_000, 5_000, 'overflow')
      .send(usage(40_000))
      .build();
    const recoveredTrace = recordedTrace(recovered, EMPTY, FACTS);
    expect(recoveredTrace.rejections).toEqual([{ requestIndex: 1, userTurn: 1, promptTokens: null }]);
    expect(recoveredTrace.failures).toEqual([]);
    const failed = new SessionFixture()
      .user()
      .send(usage(190_000))
      .overflowError()
      .overflowError()
      .user()
      .send(usage(40_000))
      .build();
    expect(recordedTrace(failed, EMPTY, FACTS).failures).toEqual([{ requestIndex: 1, userTurn: 1 }]);
  });

  it('synthetic user messages (pokes, steers) do not start a turn; subagent requests are not the main agent', () => {
    const session = new SessionFixture()
      .user()
      .send(usage(1_000))
      .user(50, 'auto_poke')
      .send(usage(1_100))
      .user()
      .send(usage(1_200), 400, 'sub-1')
      .build();
    expect(recordedTrace(session, EMPTY, FACTS).requests.map((r) => [r.userTurn, r.main])).toEqual([
      [1, true],
      [1, true],
      [2, false],
    ]);
  });
});

const BASELINE = { name: 'freecode@120000', family: 'freecode' as const, params: familyDefaults('freecode') };

describe('a scenario trace', () => {
  it('takes billed rows as requests, rejected rows as refusals, and a request with no billed row as a failed turn', () => {
    const session = new SessionFixture().user().send(usage(1_000)).send(usage(2_000)).build();
    const [first] = rowsOf(requests([{ prompt: 1_000 }]));
    if (first === undefined) throw new Error('fixture');
    const rejected = {
      ...first,
      rowIndex: 1,
      kind: 'rejected_overflow' as const,
      sourceRequestIndex: null,
      requestIndex: 1,
      promptTokens: 250_000,
    };
    const result: ReplayResult = {
      ...EMPTY,
      rows: [first, rejected, { ...rejected, rowIndex: 2 }],
      compactions: [
        {
          rowIndex: 2,
          requestIndex: 1,
          trigger: 'overflow',
          promptTokensBefore: 250_000,
          promptTokensAfter: 240_000,
          estimateTokensBefore: 9_000,
          estimateTokensAfter: 8_000,
          messagesBefore: 4,
          messagesAfter: 2,
          summaryTokens: 500,
          hookBlocked: false,
          compacted: true,
        },
      ],
    };
    const scenario = {
      name: 'freecode@80000',
      family: 'freecode' as const,
      params: { ...familyDefaults('freecode'), targetTokens: 80_000 },
    };
    const trace = scenarioTrace(session, scenario, result, FACTS);
    expect(trace.requests.map((r) => r.requestIndex)).toEqual([0]);
    expect(trace.rejections).toEqual([
      { requestIndex: 1, userTurn: 1, promptTokens: 250_000 },
      { requestIndex: 1, userTurn: 1, promptTokens: 250_000 },
    ]);
    expect(trace.failures).toEqual([{ requestIndex: 1, userTurn: 1 }]);
    expect(trace.compactions[0]).toMatchObject({
      trigger: 'overflow',
      outcome: 'compacted',
      promptTokensBefore: 250_000,
      estimateTokensBefore: 9_000,
    });
    expect(trace.targetTokens).toBe(80_000);
  });

  it('a refused send that went through afterwards is no failed turn', () => {
    // Checked against a deliberate bug: the sent requests left unworked where the replay refused a send.
    const session = new SessionFixture().user().send(usage(1_000)).send(usage(2_000)).build();
    const [first, second] = rowsOf(requests([{ prompt: 1_000 }, { prompt: 2_000 }]));
    if (first === undefined || second === undefined) throw new Error('fixture');
    const rejected = {
      ...second,
      rowIndex: 1,
      kind: 'rejected_overflow' as const,
      sourceRequestIndex: null,
      promptTokens: 250_000,
    };
    const result: ReplayResult = { ...EMPTY, rows: [first, rejected, { ...second, rowIndex: 2 }] };
    const trace = scenarioTrace(session, BASELINE, result, FACTS);
    expect(trace.rejections).toEqual([{ requestIndex: 1, userTurn: 1, promptTokens: 250_000 }]);
    expect(trace.failures).toEqual([]);
    expect(trace.requests.map((r) => [r.requestIndex, r.basis, r.main, r.userTurn])).toEqual([
      [0, 'simulated', true, 1],
      [1, 'simulated', true, 1],
    ]);
  });
});
