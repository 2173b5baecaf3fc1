/**
 * Claude Code's conversation tree (formats.md §1.6–§1.7) in the replay: a request carries the
 * `parentUuid` chain it was sent with, not the file order. A rewind drops the abandoned branch; a
 * compaction whose summary is a root restarts the context at the summary, and what the agent
 * re-attaches after it without logging it (the files it had read) is measured per stretch.
 * Fixtures are hand-written from formats.md, never copied from real logs.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverSessions, loadSession } from '../../src/ingest/index.js';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import { CACHE_RULES } from '../../src/provider/cache-rules.js';
import type { Session } from '../../src/session/model.js';
import type { TokenCalibration } from '../../src/simulate/calibrate.js';
import { calibrateTokens } from '../../src/simulate/calibrate.js';
import { modelFactsFor } from '../../src/simulate/model-facts.js';
import { NO_PRUNING_POLICY } from '../../src/simulate/recorded-policy.js';
import { replaySession } from '../../src/simulate/replay.js';
import { familyDefaults } from '../../src/simulate/scenario.js';
import { simulateSession } from '../../src/simulate/simulate-session.js';

const MODEL = 'claude-sonnet-4-20250514';
const T0 = Date.UTC(2025, 6, 1, 9, 0, 0);

type Line = Record<string, unknown>;

/** Builds a 1.0.x-style main transcript: each record names its parent, as the real tree does. */
class Transcript {
  readonly lines: Line[] = [];
  private seq = 0;
  private clock = T0;

  private envelope(uuid: string, parentUuid: string | null): Line {
    this.clock += 5_000;
    return {
      uuid,
      parentUuid,
      isSidechain: false,
      sessionId: 'R1',
      version: '1.0.53',
      cwd: '/tmp/app',
      timestamp: new Date(this.clock).toISOString(),
    };
  }

  user(uuid: string, parent: string | null, chars: number): this {
    this.lines.push({
      ...this.envelope(uuid, parent),
      type: 'user',
      message: { role: 'user', content: 'p'.repeat(chars) },
    });
    return this;
  }

  /** A legacy compaction (formats.md §1.7): a root `user` record with `isCompactSummary`. */
  summary(uuid: string, chars: number): this {
    this.lines.push({
      ...this.envelope(uuid, null),
      type: 'user',
      isCompactSummary: true,
      message: { role: 'user', content: 'This session is being continued. ' + 's'.repeat(Math.max(0, chars - 33)) },
    });
    return this;
  }

  /** One response (one text block) with the usage the provider measured for its prompt. */
  assistant(uuid: string, parent: string, chars: number, prompt: number, cacheRead = 0): this {
    const n = ++this.seq;
    this.lines.push({
      ...this.envelope(uuid, parent),
      type: 'assistant',
      requestId: `req_${n}`,
      message: {
        id: `msg_${n}`,
        type: 'message',
        role: 'assistant',
        model: MODEL,
        content: [{ type: 'text', text: 't'.repeat(chars) }],
        stop_reason: 'end_turn',
        usage: {
          input_tokens: 3,
          cache_read_input_tokens: cacheRead,
          cache_creation_input_tokens: prompt - cacheRead - 3,
          output_tokens: 20,
        },
      },
    });
    return this;
  }

  /** One content block of a response with two tool calls (§1.4: one line per block, same ids). */
  toolUse(uuid: string, parent: string, callId: string, prompt: number, n: number): this {
    this.lines.push({
      ...this.envelope(uuid, parent),
      type: 'assistant',
      requestId: `req_${n}`,
      message: {
        id: `msg_${n}`,
        type: 'message',
        role: 'assistant',
        model: MODEL,
        content: [{ type: 'tool_use', id: callId, name: 'Read', input: { file_path: 'f'.repeat(80) } }],
        stop_reason: 'tool_use',
        usage: {
          input_tokens: 3,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: prompt - 3,
          output_tokens: 9,
        },
      },
    });
    return this;
  }

  toolResult(uuid: string, parent: string, callId: string, chars: number): this {
    this.lines.push({
      ...this.envelope(uuid, parent),
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: 'r'.repeat(chars) }] },
    });
    return this;
  }

  text(): string {
    return this.lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
  }
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cachecost-chain-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function load(name: string, transcript: Transcript): Promise<Session> {
  const dir = join(root, name, 'projects', '-tmp-app');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'R1.jsonl'), transcript.text());
  const { sources } = await discoverSessions([join(root, name)]);
  const source = sources[0];
  if (source === undefined) throw new Error('no session');
  return loadSession(source, { content: 'sizes' });
}

/** One token per character and a 2,000-token static block: sizes are computable by hand. */
const UNIT: TokenCalibration = { tokensPerChar: 1, staticBlockTokens: 2_000, source: 'fitted', points: 0 };

function recordedPrompts(session: Session, calibration: TokenCalibration): number[] {
  const result = replaySession({
    session,
    scenario: { name: 'recorded', family: 'recorded', params: familyDefaults('recorded') },
    calibration,
    recordedPolicy: NO_PRUNING_POLICY,
    modelFacts: () => ({ contextWindowTokens: 200_000, maxOutputTokens: 32_000, rules: CACHE_RULES.anthropic }),
    preCompactHookBlocks: false,
  });
  return result.rows.filter((row) => row.kind === 'request').map((row) => row.promptTokens);
}

describe('Claude Code rewinds (formats.md §1.6)', () => {
  /** u1 → a1 → u2 → a2, then the user rewinds to a1 and asks u3 instead of u2. */
  const rewound = () =>
    new Transcript()
      .user('u1', null, 400)
      .assistant('a1', 'u1', 100, 2_500)
      .user('u2', 'a1', 3_000)
      .assistant('a2', 'u2', 1_000, 5_500)
      .user('u3', 'a1', 300)
      .assistant('a3', 'u3', 100, 2_800);

  it('the ingest keeps each item’s parent in the tree', async () => {
    const session = await load('rewind-ingest', rewound());
    const parents = Object.fromEntries(session.items.map((item) => [item.id, item.parentId]));
    expect(parents).toEqual({ u1: null, a1: 'u1', u2: 'a1', a2: 'u2', u3: 'a1', a3: 'u3' });
  });

  it('the request after a rewind carries the chain through its parent, not the abandoned branch', async () => {
    const session = await load('rewind-replay', rewound());
    // static 2,000 + u1 400 + a1 100 (+ u2 3,000 + a2 1,000 on the abandoned branch) + u3 300.
    expect(recordedPrompts(session, UNIT)).toEqual([2_400, 5_500, 2_800]);
  });

  it('tool results answered off an earlier block of their response are no rewind', async () => {
    // a1 and a2 are the two tool calls of one response; r1 names a1, the block that made its call.
    const t = new Transcript()
      .user('u1', null, 400)
      .toolUse('a1', 'u1', 'call_1', 2_400, 9)
      .toolUse('a2', 'a1', 'call_2', 2_400, 9)
      .toolResult('r1', 'a1', 'call_1', 1_000)
      .toolResult('r2', 'r1', 'call_2', 1_000)
      .assistant('a3', 'r2', 100, 4_600);
    const session = await load('parallel-calls', t);
    // static 2,000 + u1 400 + both calls (name 4 + args 96 each) + both results 1,000 each.
    expect(recordedPrompts(session, UNIT)).toEqual([2_400, 2_400 + 2 * 100 + 2_000]);
  });

  it('a rewind to a tool result carries the chain through the response that made its call', async () => {
    // u1 → c1 (call_1) → r1 → a2 → u2 → a3, then the user rewinds to r1 and asks u3 instead of u2.
    const t = new Transcript()
      .user('u1', null, 400)
      .toolUse('c1', 'u1', 'call_1', 2_400, 99)
      .toolResult('r1', 'c1', 'call_1', 1_000)
      .assistant('a2', 'r1', 100, 3_500)
      .user('u2', 'a2', 3_000)
      .assistant('a3', 'u2', 100, 6_600)
      .user('u3', 'r1', 300)
      .assistant('a4', 'u3', 100, 3_800);
    const session = await load('rewind-to-result', t);
    // static 2,000 + u1 400 + c1's call (name 4 + args 96) and its result 1,000 (+ a2 100 + u2 3,000 abandoned) + u3 300.
    expect(recordedPrompts(session, UNIT)).toEqual([2_400, 3_500, 6_600, 3_800]);
  });

  it('a log without the tree (no parentId) is replayed in file order, as before', async () => {
    const session = await load('rewind-linear', rewound());
    const linear = { ...session, items: session.items.map(({ parentId: _parent, ...item }) => item) };
    expect(recordedPrompts(linear, UNIT)).toEqual([2_400, 5_500, 6_800]);
  });
});

describe('Claude Code compactions restart the chain (formats.md §1.7)', () => {
  const S = 3_000;
  const HIDDEN = 1_500;
  /** Measured prompts at 4 characters a token: static + visible, and after the compaction + hidden files. */
  const compacted = () => {
    const t = new Transcript().user('u1', null, 4_000);
    let parent = 'u1';
    let visible = 1_000;
    for (let i = 1; i <= 6; i++) {
      t.assistant(`a${i}`, parent, 400, S + visible);
      t.user(`r${i}`, `a${i}`, 2_000 * i);
      parent = `r${i}`;
      visible += 100 + 500 * i;
    }
    t.summary('sum', 2_000);
    let after = 500;
    parent = 'sum';
    for (let i = 1; i <= 6; i++) {
      t.assistant(`b${i}`, parent, 400, S + HIDDEN + after, S);
      t.user(`q${i}`, `b${i}`, 1_200 * i);
      parent = `q${i}`;
      after += 100 + 300 * i;
    }
    return t;
  };

  it('after a root summary the context is the summary and what follows, with the re-attached block measured', async () => {
    const session = await load('compaction', compacted());
    const simulation = simulateSession(
      session,
      [{ name: 'recorded', family: 'recorded', params: familyDefaults('recorded') }],
      { modelFacts: modelFactsFor(loadBundledPriceTable(), 'anthropic') },
    );
    expect(simulation.calibration.restoredTokens?.length).toBe(1);
    expect(Math.abs((simulation.calibration.restoredTokens?.[0] ?? 0) - HIDDEN)).toBeLessThan(60);
    expect(Math.abs(simulation.calibration.staticBlockTokens - S)).toBeLessThan(60);
    expect(simulation.fidelity.medianRequestErrorPct ?? 100).toBeLessThan(1);
  });
});

describe('calibrateTokens with chain restarts', () => {
  it('fits the ratio within each stretch and a hidden block per restart', () => {
    const points = [0, 1, 2].flatMap((group) =>
      [10_000, 20_000, 30_000].map((chars) => ({
        promptTokens: 5_000 + chars / 4 + (group === 0 ? 0 : 2_000 * group),
        visibleChars: chars,
        visibleSegments: 0,
        ...(group > 0 ? { restartGroup: group } : {}),
      })),
    );
    const fit = calibrateTokens(points);
    expect(fit.tokensPerChar).toBeCloseTo(0.25, 6);
    expect(fit.staticBlockTokens).toBe(5_000);
    expect(fit.restoredTokens).toEqual([2_000, 4_000]);
  });
});
