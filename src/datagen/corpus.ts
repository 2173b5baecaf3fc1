/**
 * A large synthetic corpus for benchmarks (not committed): sessions of several archetypes
 * (healthy compacting sessions, blocked-hook storms, RC3/RC4-era runaways on MiniMax, GPT-5 and
 * Claude), written one after another into a FreeCode home until a byte target is reached.
 * Deterministic for a seed, streamed to disk session by session.
 */
import { CachecostError } from '../session/errors.js';
import { resetHome, writeSession } from './home-writer.js';
import { CLAUDE_SONNET_4_5, GPT_5, MINIMAX_M3 } from './models.js';
import { hashSeed, Rng } from './rng.js';
import { shapeRuns } from './run-shapes.js';
import type { ModelProfile, SessionPlan } from './session-plan.js';
import type { SessionReport } from './simulator.js';

export interface CorpusOptions {
  readonly outDir: string;
  /** Stop once at least this many bytes were written. */
  readonly targetBytes?: number;
  readonly seed?: number;
  /** Stop after this many sessions (at least one of `targetBytes` and `maxSessions` is required). */
  readonly maxSessions?: number;
  /** Provider responses per session (default: 4–14 user messages of 9–20 responses each). */
  readonly responsesPerSession?: number;
  /** Called after each session (for progress bars). */
  readonly onSession?: (report: SessionReport, totalBytes: number) => void;
}

export interface CorpusSummary {
  readonly sessions: number;
  readonly bytes: number;
  readonly requests: number;
}

type Archetype = 'healthy' | 'blocked' | 'runaway-minimax' | 'runaway-gpt5' | 'cache-bust';

const ARCHETYPES: readonly Archetype[] = ['healthy', 'runaway-minimax', 'blocked', 'runaway-gpt5', 'cache-bust'];
const PEOPLE = ['mara', 'jonas', 'priya', 'tomas', 'aiko', 'lena', 'omar', 'sofia', 'kwame', 'ines', 'yuki', 'dev'];
const REPOS = [
  'ledger-sync',
  'shipyard',
  'atlas-api',
  'relay-hooks',
  'billing-core',
  'catalog-search',
  'nightly-ingest',
  'geo-tiles',
  'mailer',
  'flagship',
];

/** The plan of the corpus's `index`-th session (`responses` fixes its size in provider responses). */
export function corpusPlan(seed: number, index: number, responses?: number): SessionPlan {
  const rng = new Rng(hashSeed('cachecost-corpus', seed, index));
  const archetype = ARCHETYPES[index % ARCHETYPES.length] ?? 'healthy';
  const users = responses === undefined ? rng.int(4, 14) : Math.max(1, Math.min(14, Math.floor(responses / 12)));
  const responseCount = responses ?? users * rng.int(9, 20);
  const textOnly = users + rng.int(0, Math.floor(users / 2));
  const idle = Array.from({ length: users - 1 }, (): 'short' | 'long' => (rng.chance(25) ? 'long' : 'short'));
  const aug = archetype.startsWith('runaway') || archetype === 'cache-bust';
  const model: ModelProfile =
    archetype === 'runaway-minimax' ? MINIMAX_M3 : archetype === 'runaway-gpt5' ? GPT_5 : CLAUDE_SONNET_4_5;
  // Final prompts scale with the session's length and stay below each era's window-only trigger.
  const grown = 12_000 + responseCount * rng.int(500, 1_100);
  const finalTargets: Record<Archetype, number> = {
    healthy: 0,
    blocked: Math.max(115_000, Math.min(160_000, grown)),
    'runaway-minimax': Math.min(300_000, grown),
    'runaway-gpt5': Math.min(220_000, grown),
    'cache-bust': Math.min(130_000, grown),
  };
  const person = rng.pick(PEOPLE);
  const repo = rng.pick(REPOS);
  return {
    name: `corpus-${index}`,
    title: `corpus ${archetype} #${index}`,
    seed: hashSeed('cachecost-corpus-sim', seed, index),
    sessionIdPrefix: '',
    startMs: Date.parse('2026-08-01T00:00:00Z') + index * 3_700_000 + rng.int(0, 3_000_000),
    era: aug ? 'aug' : 'newest',
    storeUsage: archetype === 'cache-bust' ? 'creation' : aug ? 'none' : 'write',
    model,
    cptHundredths: rng.int(350, 420),
    staticTokens: rng.int(9_000, 14_000),
    toolCount: aug ? 14 : 16,
    project: {
      projectPath: `/home/${person}/src/${repo}`,
      scope: `@${repo.split('-')[0] ?? 'app'}`,
      pythonPercent: rng.int(0, 40),
      packageCount: rng.int(3, 7),
    },
    legacy: { slidingTruncation: aug, microcompact: aug },
    compactionTrigger: aug ? 'window-only' : 'target',
    preCompactHook:
      archetype === 'blocked'
        ? { kind: 'block', reason: 'PreCompact hook .freecode/hooks/pin-context.sh exited 2: refusing to compact' }
        : { kind: 'allow' },
    growth:
      archetype === 'healthy'
        ? { kind: 'per-response', tokens: rng.int(700, 1_500) }
        : { kind: 'final-prompt', tokens: finalTargets[archetype] },
    runs: shapeRuns(rng, {
      users,
      responses: Math.max(responseCount, users * 4),
      textOnly,
      toolOnly: Math.floor(responseCount / 4),
      idle,
      paste: () => ({ kind: 'none', chars: 0 }),
      parallelCalls: !aug,
    }),
  };
}

/**
 * Wipes `outDir` (a FreeCode home) and fills it with corpus sessions, one after another, until
 * `targetBytes` were written or `maxSessions` sessions exist. Deterministic for a seed.
 */
export function generateCorpus(options: CorpusOptions): CorpusSummary {
  if (options.targetBytes === undefined && options.maxSessions === undefined)
    throw new CachecostError('BAD_ARGUMENT', 'generateCorpus needs targetBytes or maxSessions');
  const seed = options.seed ?? 1;
  resetHome(options.outDir);
  let bytes = 0;
  let sessions = 0;
  let requests = 0;
  while (
    bytes < (options.targetBytes ?? Number.POSITIVE_INFINITY) &&
    sessions < (options.maxSessions ?? Number.POSITIVE_INFINITY)
  ) {
    const written = writeSession(options.outDir, corpusPlan(seed, sessions, options.responsesPerSession));
    bytes += written.bytes;
    requests += written.report.requests;
    sessions += 1;
    options.onSession?.(written.report, bytes);
  }
  return { sessions, bytes, requests };
}
