/**
 * The committed dataset (`datasets/freecode`): seven synthetic sessions, each a plan for the
 * simulator, with the figures it must reproduce checked after generation (`expectations`).
 * See `datasets/README.md` for what each one reproduces and the assumptions behind it.
 */
import { CLAUDE_SONNET_4_5, DEEPSEEK_CHAT, GPT_5, MINIMAX_M3 } from './models.js';
import { hashSeed, Rng } from './rng.js';
import { shapeRuns } from './run-shapes.js';
import type { PasteKind, ResponseKind, RunPlan, SessionPlan } from './session-plan.js';

/** The dataset's master seed; every session derives its own stream from it and its name. */
export const DATASET_SEED = 20_260_804;

const NO_PASTE = (): { kind: PasteKind; chars: number } => ({ kind: 'none', chars: 0 });

function utc(iso: string): number {
  return Date.parse(iso);
}

/** Figures a generated session must show (checked by the generator and by the tests). */
export interface ScenarioExpectations {
  readonly userMessages: number;
  readonly requests: number;
  /** The last request's prompt (≈, within `tolerancePct`). */
  readonly finalPromptTokens?: number;
  readonly peakPromptTokens?: number;
  readonly tolerancePct: number;
  readonly assistantMessages?: number;
  readonly toolPartsHistogram?: Readonly<Record<string, number>>;
  readonly compactions?: readonly [number, number];
  readonly overflowCompactions?: number;
  readonly failedTurns?: number;
  readonly minHookBlocks?: number;
  readonly microcompactRuns?: number;
}

export interface DatasetScenario {
  readonly plan: SessionPlan;
  readonly expect: ScenarioExpectations;
}

/**
 * The plan of a later attempt: same shape, another simulation seed. The generator takes the
 * first attempt whose figures meet the expectations (a deterministic search).
 */
export function planForAttempt(plan: SessionPlan, attempt: number): SessionPlan {
  return attempt === 0 ? plan : { ...plan, seed: hashSeed('attempt', plan.seed, attempt) };
}

function seedFor(name: string, seed: number): number {
  return hashSeed('cachecost-dataset', seed, name);
}

/** The three rows of the token-efficiency table (engine.md §9.2), same era and mechanisms. */
function tokenEfficiencyRow(
  seed: number,
  name: string,
  prefix: string,
  title: string,
  startIso: string,
  model: typeof MINIMAX_M3,
  cptHundredths: number,
  project: { projectPath: string; scope: string },
  shape: { users: number; responses: number; textOnly: number; toolOnly: number; idle: ('short' | 'long')[] },
  finalPromptTokens: number,
): SessionPlan {
  const rng = new Rng(seedFor(name, seed));
  return {
    name,
    title,
    seed: seedFor(`${name}/sim`, seed),
    sessionIdPrefix: prefix,
    startMs: utc(startIso),
    era: 'aug',
    storeUsage: 'none',
    model,
    cptHundredths,
    staticTokens: rng.int(11_600, 12_800),
    toolCount: 14,
    project: { ...project, pythonPercent: 25, packageCount: 6 },
    legacy: { slidingTruncation: true, microcompact: true },
    compactionTrigger: 'window-only',
    preCompactHook: { kind: 'allow' },
    growth: { kind: 'final-prompt', tokens: finalPromptTokens },
    runs: shapeRuns(rng, {
      ...shape,
      paste: (r) =>
        r === 0
          ? { kind: 'trace', chars: 1800 }
          : r % 3 === 2
            ? { kind: 'test-output', chars: 2500 }
            : { kind: 'none', chars: 0 },
      parallelCalls: false,
    }),
  };
}

function runaway(seed: number): DatasetScenario {
  const plan = tokenEfficiencyRow(
    seed,
    'runaway',
    '4ba54e41',
    'runaway: make the ledger sync worker idempotent',
    '2026-08-04T09:14:27Z',
    MINIMAX_M3,
    380,
    { projectPath: '/home/mara/src/ledger-sync', scope: '@ledger' },
    {
      users: 7,
      responses: 229,
      textOnly: 13,
      toolOnly: 82,
      idle: ['short', 'long', 'short', 'long', 'short', 'short'],
    },
    270_000,
  );
  return {
    plan,
    expect: {
      userMessages: 7,
      requests: 229,
      finalPromptTokens: 270_000,
      tolerancePct: 2,
      assistantMessages: 363,
      toolPartsHistogram: { '0': 147, '1': 216 },
      compactions: [0, 0],
      microcompactRuns: 2,
    },
  };
}

function runaway65(seed: number): DatasetScenario {
  const plan = tokenEfficiencyRow(
    seed,
    'runaway-65f171fa',
    '65f171fa',
    'runaway-65f171fa: migrate shipment exports to the new schema',
    '2026-08-02T13:05:40Z',
    MINIMAX_M3,
    385,
    { projectPath: '/home/jonas/work/shipyard', scope: '@shipyard' },
    {
      users: 8,
      responses: 300,
      textOnly: 16,
      toolOnly: 95,
      idle: ['short', 'short', 'long', 'short', 'long', 'short', 'short'],
    },
    201_000,
  );
  return {
    plan,
    expect: {
      userMessages: 8,
      requests: 300,
      finalPromptTokens: 201_000,
      tolerancePct: 2,
      compactions: [0, 0],
      microcompactRuns: 2,
    },
  };
}

function runaway08(seed: number): DatasetScenario {
  const plan = tokenEfficiencyRow(
    seed,
    'runaway-08e19c43',
    '08e19c43',
    'runaway-08e19c43: pricing service cleanup',
    '2026-08-01T08:40:12Z',
    GPT_5,
    410,
    { projectPath: '/Users/priya/code/atlas-api', scope: '@atlas' },
    {
      users: 19,
      responses: 295,
      textOnly: 26,
      toolOnly: 70,
      idle: [
        'short',
        'short',
        'long',
        'short',
        'short',
        'short',
        'long',
        'short',
        'short',
        'short',
        'long',
        'short',
        'short',
        'short',
        'short',
        'long',
        'short',
        'short',
      ],
    },
    156_000,
  );
  return {
    plan,
    expect: {
      userMessages: 19,
      requests: 295,
      finalPromptTokens: 156_000,
      tolerancePct: 2,
      compactions: [0, 0],
      microcompactRuns: 4,
    },
  };
}

function cacheBustPruning(seed: number): DatasetScenario {
  const name = 'cache-bust-pruning';
  const rng = new Rng(seedFor(name, seed));
  const plan: SessionPlan = {
    name,
    title: 'cache-bust-pruning: speed up the catalog search indexer',
    seed: seedFor(`${name}/sim`, seed),
    sessionIdPrefix: '',
    startMs: utc('2026-08-04T23:31:05Z'),
    era: 'aug',
    storeUsage: 'creation',
    model: CLAUDE_SONNET_4_5,
    cptHundredths: 365,
    staticTokens: rng.int(11_200, 12_600),
    toolCount: 14,
    project: { projectPath: '/home/omar/src/catalog-search', scope: '@catalog', pythonPercent: 0, packageCount: 5 },
    // RC3 still existed on 2026-08-04/05; every idle gap is short, so it never fires here.
    legacy: { slidingTruncation: true, microcompact: true },
    compactionTrigger: 'window-only',
    preCompactHook: { kind: 'allow' },
    growth: { kind: 'final-prompt', tokens: 118_000 },
    runs: shapeRuns(rng, {
      users: 6,
      responses: 96,
      textOnly: 8,
      toolOnly: 30,
      idle: ['short', 'short', 'short', 'short', 'short'],
      paste: NO_PASTE,
      parallelCalls: false,
    }),
  };
  return {
    plan,
    expect: {
      userMessages: 6,
      requests: 96,
      finalPromptTokens: 118_000,
      tolerancePct: 3,
      compactions: [0, 0],
      microcompactRuns: 0,
    },
  };
}

function healthy(seed: number): DatasetScenario {
  const name = 'healthy';
  const rng = new Rng(seedFor(name, seed));
  const idle: ('short' | 'long')[] = [
    'short',
    'short',
    'short',
    'long',
    'short',
    'short',
    'short',
    'short',
    'short',
    'long',
    'short',
    'short',
    'short',
  ];
  const plan: SessionPlan = {
    name,
    title: 'healthy: add webhook delivery retries with backoff',
    seed: seedFor(`${name}/sim`, seed),
    sessionIdPrefix: '',
    startMs: utc('2026-10-14T08:52:31Z'),
    era: 'newest',
    storeUsage: 'write',
    model: CLAUDE_SONNET_4_5,
    cptHundredths: 365,
    staticTokens: rng.int(11_400, 12_900),
    toolCount: 16,
    project: { projectPath: '/home/lena/code/relay-hooks', scope: '@relay', pythonPercent: 0, packageCount: 6 },
    legacy: { slidingTruncation: false, microcompact: false },
    compactionTrigger: 'target',
    preCompactHook: { kind: 'allow' },
    growth: { kind: 'per-response', tokens: 1_400 },
    runs: shapeRuns(rng, {
      users: 14,
      responses: 196,
      textOnly: 18,
      toolOnly: 50,
      idle,
      paste: (r) => (r === 0 ? { kind: 'trace', chars: 1500 } : NO_PASTE()),
      parallelCalls: true,
    }),
  };
  return {
    plan,
    expect: {
      userMessages: 14,
      requests: 196,
      tolerancePct: 0,
      compactions: [2, 3],
      overflowCompactions: 0,
      failedTurns: 0,
    },
  };
}

function blockedHookStorm(seed: number): DatasetScenario {
  const name = 'blocked-hook-storm';
  const rng = new Rng(seedFor(name, seed));
  const plan: SessionPlan = {
    name,
    title: 'blocked-hook-storm: port the billing reconciler to streams',
    seed: seedFor(`${name}/sim`, seed),
    sessionIdPrefix: '',
    startMs: utc('2026-10-20T15:03:10Z'),
    era: 'newest',
    storeUsage: 'write',
    model: CLAUDE_SONNET_4_5,
    cptHundredths: 370,
    staticTokens: rng.int(11_400, 12_900),
    toolCount: 16,
    project: { projectPath: '/home/kwame/work/billing-core', scope: '@billing', pythonPercent: 0, packageCount: 5 },
    legacy: { slidingTruncation: false, microcompact: false },
    compactionTrigger: 'target',
    preCompactHook: {
      kind: 'block',
      reason:
        'PreCompact hook .freecode/hooks/pin-context.sh exited 2: context pinning is on for branch feat/stream-reconciler; refusing to compact',
    },
    growth: { kind: 'final-prompt', tokens: 160_000 },
    runs: shapeRuns(rng, {
      users: 10,
      responses: 140,
      textOnly: 12,
      toolOnly: 40,
      idle: ['short', 'short', 'short', 'short', 'short', 'long', 'short', 'short', 'short'],
      paste: NO_PASTE,
      parallelCalls: false,
    }),
  };
  return {
    plan,
    expect: {
      userMessages: 10,
      requests: 140,
      finalPromptTokens: 160_000,
      tolerancePct: 3,
      compactions: [0, 0],
      minHookBlocks: 8,
    },
  };
}

function overflowLoop(seed: number): DatasetScenario {
  const name = 'overflow-loop';
  const rng = new Rng(seedFor(name, seed));
  const base = shapeRuns(rng, {
    users: 7,
    responses: 96,
    textOnly: 9,
    toolOnly: 22,
    idle: ['short', 'short', 'long', 'short', 'short', 'short'],
    paste: NO_PASTE,
    parallelCalls: true,
  });
  const at = (i: number): RunPlan => {
    const run = base[i];
    if (run === undefined) throw new Error('overflow-loop: missing run');
    return run;
  };
  // Run 1 pastes a long log (a founding prompt above the 2,000-token head carve-out, §2.2 step 5);
  // run 5 pastes a CI job log (so its memory turn exceeds the 8,000-token preserve cap) and ends
  // by printing the whole nightly log (the huge result). See datasets/README.md for why these
  // shapes give three real compactions in one turn.
  const runs: RunPlan[] = [
    {
      ...at(0),
      paste: 'log',
      pasteChars: 9_600,
      prompt:
        "The nightly ingest job has been failing since Tuesday. This is the tail of last night's run, can you figure out what is going on?",
    },
    at(1),
    at(2),
    at(3),
    {
      ...at(4),
      paste: 'log',
      pasteChars: 24_000,
      prompt:
        'CI is red on main now as well, the integration job dies in the worker. Job log below. Fix it, and check the nightly worker log while you are at it.',
      responses: [
        ...Array.from({ length: 22 }, (_, i): ResponseKind => (i % 3 === 1 ? 'tool' : 'text+tool')),
        'text+tool',
        'text',
      ],
      hugeResult: { atResponse: 22, chars: 437_000 },
      steer: {
        beforeAttempt: 3,
        text: "stop, that log is enormous. don't cat the whole file, grep it for ERROR instead",
      },
      parallelCalls: false,
    },
    {
      ...at(5),
      prompt:
        'The session died on that log. Start over on the worker: grep the nightly log for ERROR lines only and fix the first failure you find.',
    },
    at(6),
  ];
  const plan: SessionPlan = {
    name,
    title: 'overflow-loop: nightly ingest job failing after the driver upgrade',
    seed: seedFor(`${name}/sim`, seed),
    sessionIdPrefix: '',
    startMs: utc('2026-10-16T13:20:48Z'),
    era: 'newest',
    storeUsage: 'write',
    model: DEEPSEEK_CHAT,
    cptHundredths: 390,
    staticTokens: rng.int(11_000, 12_400),
    toolCount: 16,
    project: { projectPath: '/home/ines/src/nightly-ingest', scope: '@ingest', pythonPercent: 0, packageCount: 5 },
    legacy: { slidingTruncation: false, microcompact: false },
    compactionTrigger: 'target',
    preCompactHook: { kind: 'allow' },
    growth: { kind: 'per-response', tokens: 900 },
    runs,
  };
  const requests = runs.reduce((n, r) => n + r.responses.length, 0) - 1;
  return {
    plan,
    expect: { userMessages: 7, requests, tolerancePct: 0, overflowCompactions: 4, failedTurns: 1, compactions: [4, 4] },
  };
}

/** The seven sessions of `datasets/freecode`, in writing order. */
export function datasetScenarios(seed: number = DATASET_SEED): DatasetScenario[] {
  return [
    runaway(seed),
    runaway65(seed),
    runaway08(seed),
    overflowLoop(seed),
    blockedHookStorm(seed),
    cacheBustPruning(seed),
    healthy(seed),
  ];
}
