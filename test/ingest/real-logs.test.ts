/**
 * Acceptance on the real samples in `../shared/real-logs` (read in place): per-session token
 * totals of the adapters equal those of independent readers written here — plain JSON.parse of
 * each line and each format's counting rule written again, with no code shared with `src/ingest`.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- the independent oracle reads raw log JSON of any shape */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect, it } from 'vitest';
import { discoverSessions, loadSession } from '../../src/ingest/index.js';
import type { Session } from '../../src/session/model.js';
import { REAL_LOGS, describeWithShared } from '../support/shared.js';

const REAL = REAL_LOGS;

type Totals = { prompt: number; read: number; write: number; output: number; requests: number };
const zero = (): Totals => ({ prompt: 0, read: 0, write: 0, output: 0, requests: 0 });

function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path, suffix));
    else if (name.endsWith(suffix)) out.push(path);
  }
  return out;
}

function jsonLines(file: string): Record<string, any>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** Claude Code: the last line per (message.id, requestId), else message.id; errors and progress copies excluded. */
function claudeOracle(file: string): Totals {
  const last = new Map<string, Record<string, any>>();
  for (const line of jsonLines(file)) {
    if (line['type'] !== 'assistant' || line['isApiErrorMessage'] === true) continue;
    const message = line['message'];
    if (message.model === '<synthetic>' || message.usage === undefined) continue;
    last.set(`${message.id}|${line['requestId'] ?? ''}`, message.usage);
  }
  const t = zero();
  for (const u of last.values()) {
    const read = u.cache_read_input_tokens ?? 0;
    const write = u.cache_creation_input_tokens ?? 0;
    t.prompt += u.input_tokens + read + write;
    t.read += read;
    t.write += write;
    t.output += u.output_tokens;
    t.requests += 1;
  }
  return t;
}

/** Codex: `last_token_usage` of every token_count whose total differs from the previous one. */
function codexOracle(file: string): Totals & { segmentTotals: number } {
  const t = { ...zero(), segmentTotals: 0 };
  let previous = '';
  let segmentMax = 0;
  for (const line of jsonLines(file)) {
    const info = line['type'] === 'event_msg' && line['payload']?.type === 'token_count' ? line['payload'].info : null;
    if (info === null || info === undefined) continue;
    const key = JSON.stringify(info.total_token_usage);
    if (key === previous) continue;
    previous = key;
    const total = info.total_token_usage.total_tokens as number;
    if (total < segmentMax) {
      t.segmentTotals += segmentMax;
      segmentMax = 0;
    }
    segmentMax = Math.max(segmentMax, total);
    const u = info.last_token_usage;
    t.prompt += u.input_tokens;
    t.read += u.cached_input_tokens;
    t.output += u.output_tokens;
    t.requests += 1;
  }
  t.segmentTotals += segmentMax;
  return t;
}

function totalsOf(session: Session): Totals {
  const t = zero();
  for (const r of session.requests) {
    if (r.usage === null) continue;
    t.prompt += r.usage.promptTokens;
    t.read += r.usage.cacheReadTokens;
    t.write += r.usage.cacheWriteTokens;
    t.output += r.usage.outputTokens;
    t.requests += 1;
  }
  return t;
}

async function sessionsOf(path: string): Promise<Session[]> {
  const { sources, issues } = await discoverSessions([path]);
  expect(issues).toEqual([]);
  const sessions: Session[] = [];
  for (const source of sources) sessions.push(await loadSession(source, { content: 'sizes' }));
  return sessions;
}

describeWithShared('real Claude Code logs', () => {
  it('per-session totals equal the independent reader, with no ingest issue', async () => {
    const sessions = await sessionsOf(join(REAL, 'claude-code'));
    const files = filesUnder(join(REAL, 'claude-code'), '.jsonl');
    expect(sessions.map((s) => s.id).sort()).toEqual(files.map((f) => basename(f, '.jsonl')).sort());
    for (const session of sessions) {
      expect(session.issues, session.id).toEqual([]);
      const file = files.find((f) => basename(f, '.jsonl') === session.id) ?? '';
      expect(totalsOf(session), session.id).toEqual(claudeOracle(file));
    }
  });

  it('the legacy compactions of 1.0.53 appear as recorded compactions, one per isCompactSummary record', async () => {
    const sessions = await sessionsOf(join(REAL, 'claude-code'));
    for (const prefix of ['0a725fb5', '9034225e']) {
      const session = sessions.find((s) => s.id.startsWith(prefix));
      const file = filesUnder(join(REAL, 'claude-code'), '.jsonl').find((f) => basename(f).startsWith(prefix)) ?? '';
      const summaries = jsonLines(file).filter((l) => l['isCompactSummary'] === true).length;
      expect(summaries).toBeGreaterThan(0);
      const compactions = session?.events.filter((e) => e.kind === 'compaction') ?? [];
      expect(compactions).toHaveLength(summaries);
      expect(compactions.every((c) => c.tokenUnit === 'provider' && c.summaryItemId !== null)).toBe(true);
    }
  });

  it('inline sidechain requests are attributed to an agent, never to the main context', async () => {
    const sessions = await sessionsOf(join(REAL, 'claude-code'));
    const session = sessions.find((s) => s.id.startsWith('fe5e1c67'));
    const file = filesUnder(join(REAL, 'claude-code'), '.jsonl').find((f) => basename(f).startsWith('fe5e1c67')) ?? '';
    const sidechainKeys = new Set(
      jsonLines(file)
        .filter((l) => l['type'] === 'assistant' && l['isSidechain'] === true)
        .map((l) => `${l['message'].id}|${l['requestId']}`),
    );
    expect(session?.requests.filter((r) => r.agentId !== null)).toHaveLength(sidechainKeys.size);
  });
});

describeWithShared('real Codex logs', () => {
  it('per-session totals equal the independent reader, with no ingest issue', async () => {
    const sessions = await sessionsOf(join(REAL, 'codex'));
    const files = filesUnder(join(REAL, 'codex'), '.jsonl');
    expect(sessions).toHaveLength(files.length);
    for (const session of sessions) {
      expect(session.issues, session.id).toEqual([]);
      const file = files.find((f) => f.includes(session.id)) ?? '';
      const { segmentTotals: _, ...oracle } = codexOracle(file);
      expect(totalsOf(session), session.id).toEqual(oracle);
    }
  });

  it('the MoonMind resume (total reset) neither loses nor double counts a request', async () => {
    const file = filesUnder(join(REAL, 'codex'), '.jsonl').find((f) => f.includes('019a7ae6')) ?? '';
    const [session] = await sessionsOf(file);
    const oracle = codexOracle(file);
    const totals = totalsOf(session ?? ({ requests: [] } as unknown as Session));
    // The file's last cumulative total is far below the sum of calls: the counter restarted.
    const lastTotal = jsonLines(file)
      .filter((l) => l['payload']?.type === 'token_count' && l['payload'].info !== null)
      .at(-1)?.['payload'].info.total_token_usage.total_tokens;
    expect(lastTotal).toBeLessThan(oracle.segmentTotals);
    // Σ(prompt + output) over requests = Σ over segments of each segment's final cumulative total.
    expect(totals.prompt + totals.output).toBe(oracle.segmentTotals);
    expect(totals.requests).toBe(oracle.requests);
  });
});

describeWithShared('real OpenHands and SWE-agent logs', () => {
  it('OpenHands: one request per unique response id, totals equal the independent reader', async () => {
    const sessions = await sessionsOf(join(REAL, 'openhands'));
    const expected = new Map<string, Totals>();
    const add = (id: string, seen: Set<string>, responseId: string, u: Record<string, any>, t: Totals): void => {
      if (seen.has(responseId)) return;
      seen.add(responseId);
      const read = u.cache_read_input_tokens ?? u.cache_read_tokens ?? u.prompt_tokens_details?.cached_tokens ?? 0;
      const write = u.cache_creation_input_tokens ?? u.cache_write_tokens ?? 0;
      t.prompt += u.prompt_tokens;
      t.read += read;
      t.write += write;
      t.output += u.completion_tokens;
      t.requests += 1;
      expected.set(id, t);
    };
    for (const file of filesUnder(join(REAL, 'openhands'), '.json')) {
      const t = zero();
      const seen = new Set<string>();
      for (const event of JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>[]) {
        const response = event['tool_call_metadata']?.model_response;
        if (response !== undefined) add(basename(file, '.json'), seen, response.id, response.usage, t);
      }
      expected.set(basename(file, '.json'), t);
    }
    for (const instance of jsonLines(join(REAL, 'openhands', 'output.jsonl'))) {
      const t = zero();
      const seen = new Set<string>();
      for (const u of instance['metrics'].token_usages) add(instance['instance_id'], seen, u.response_id, u, t);
      expected.set(instance['instance_id'], t);
    }
    expect(sessions.map((s) => s.id).sort()).toEqual([...expected.keys()].sort());
    for (const session of sessions) expect(totalsOf(session), session.id).toEqual(expected.get(session.id));
  });

  it('SWE-agent: totals only, from info.model_stats', async () => {
    const sessions = await sessionsOf(join(REAL, 'swe-agent'));
    const files = filesUnder(join(REAL, 'swe-agent'), '.traj');
    expect(sessions).toHaveLength(files.length);
    for (const file of files) {
      const stats = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>)['info'].model_stats;
      const session = sessions.find((s) => s.id === basename(file, '.traj'));
      expect(session?.requests).toEqual([]);
      expect(session?.totalsOnly).toEqual({
        promptTokens: stats.tokens_sent,
        outputTokens: stats.tokens_received,
        requests: stats.api_calls,
      });
    }
  });
});
