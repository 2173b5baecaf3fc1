/**
 * Flags on the real logs of `../shared/real-logs` (read in place, never copied). Every flag they
 * raise was checked by hand and is listed in README "Flags"; the figures are re-derived here by a
 * second, simpler reader of the same file (Claude Code JSONL: one usage per response, the last
 * line of each `(message.id, requestId)` group, main chain only; formats.md §1.3–§1.6).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { forEachSession } from '../../src/usecases/for-each-session.js';
import { modelFactsFor } from '../../src/simulate/model-facts.js';
import { BASELINE_SCENARIO, detectSessionFlags } from '../../src/detect/detect-session.js';
import type { Flag } from '../../src/detect/flag.js';
import { DEFAULT_THRESHOLDS } from '../../src/detect/thresholds.js';
import type { Scenario } from '../../src/simulate/scenario.js';
import { familyDefaults } from '../../src/simulate/scenario.js';
import { isReplayable, simulateSession } from '../../src/simulate/simulate-session.js';
import { REAL_LOGS, describeWithShared } from '../support/shared.js';
import { PRICES } from './trace-fixture.js';

const VSLA = join(REAL_LOGS, 'claude-code', 'projects', '-home-kenth56-vsla');
const RECORDED: Scenario = { name: 'recorded', family: 'recorded', params: familyDefaults('recorded') };

/** The flags reviewed by hand (README "Flags"): session id prefix and kind. */
const REVIEWED = ['0a725fb5 never-compacted', '0a725fb5 ttl-mismatch', '9034225e never-compacted'];

type Call = {
  readonly promptTokens: number;
  readonly readTokens: number;
  readonly writeTokens: number;
  readonly atMs: number;
};

/** A second reader of a Claude Code transcript: the main chain's calls, one per response. */
function claudeCodeCalls(file: string): Call[] {
  const calls = new Map<string, Call>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const record: unknown = JSON.parse(line);
    if (typeof record !== 'object' || record === null || !('type' in record) || record.type !== 'assistant') continue;
    if ('isSidechain' in record && record.isSidechain === true) continue;
    const message =
      'message' in record && typeof record.message === 'object' && record.message !== null ? record.message : null;
    const usage =
      message !== null && 'usage' in message && typeof message.usage === 'object' && message.usage !== null
        ? message.usage
        : null;
    if (message === null || usage === null || ('model' in message && message.model === '<synthetic>')) continue;
    const count = (key: string): number => {
      const value: unknown = Reflect.get(usage, key);
      return typeof value === 'number' ? value : 0;
    };
    const id = 'id' in message ? String(message.id) : '';
    const requestId = 'requestId' in record ? String(record.requestId) : '';
    const atMs = 'timestamp' in record ? Date.parse(String(record.timestamp)) : Number.NaN;
    const read = count('cache_read_input_tokens');
    const write = count('cache_creation_input_tokens');
    calls.delete(`${id}:${requestId}`); // the last line of a response wins, in the response's first place
    calls.set(`${id}:${requestId}`, {
      promptTokens: count('input_tokens') + read + write,
      readTokens: read,
      writeTokens: write,
      atMs,
    });
  }
  return [...calls.values()];
}

const flags: Flag[] = [];

describeWithShared('flags on ../shared/real-logs', () => {
  beforeAll(async () => {
    await forEachSession([REAL_LOGS], { content: 'text' }, (session) => {
      if (!isReplayable(session)) return;
      const provider = session.requests.find((request) => request.provider !== null)?.provider ?? null;
      const modelFacts = modelFactsFor(PRICES, provider);
      const simulation = simulateSession(session, [RECORDED, BASELINE_SCENARIO], { modelFacts });
      flags.push(
        ...detectSessionFlags(simulation, {
          prices: PRICES,
          modelFacts,
          thresholds: DEFAULT_THRESHOLDS,
          baseline: BASELINE_SCENARIO,
          examined: [],
        }),
      );
    });
  }, 60_000);

  it('raises exactly the flags reviewed by hand', () => {
    expect(flags.map((flag) => `${flag.sessionId.slice(0, 8)} ${flag.kind}`).sort()).toEqual([...REVIEWED].sort());
  });

  it.each([['0a725fb5-6378-432a-9e84-9f3f49d4043d'], ['9034225e-c367-4ab6-b1eb-1f478a7ae27a']])(
    '%s never compacted: the longest run of calls above 120K, recounted from the transcript',
    (id) => {
      const calls = claudeCodeCalls(join(VSLA, `${id}.jsonl`));
      let run = 0;
      let longest = 0;
      for (const call of calls) {
        run = call.promptTokens > 120_000 ? run + 1 : 0;
        longest = Math.max(longest, run);
      }
      const flag = flags.find((f) => f.kind === 'never-compacted' && f.sessionId === id);
      expect(flag?.evidence['requestsAboveTarget']).toBe(longest);
      expect(flag?.evidence['requests']).toBe(calls.length);
      expect(flag?.evidence['peakContextTokens']).toBe(Math.max(...calls.map((call) => call.promptTokens)));
    },
  );

  it('0a725fb5 TTL mismatch: the idle gaps of 5–60 minutes after which nothing was read, recounted', () => {
    const calls = claudeCodeCalls(join(VSLA, '0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl'));
    let expired = 0;
    for (let i = 1; i < calls.length; i++) {
      const gapMs = (calls[i]?.atMs ?? 0) - (calls[i - 1]?.atMs ?? 0);
      if (gapMs > 300_000 && gapMs <= 3_600_000 && calls[i]?.readTokens === 0 && (calls[i]?.writeTokens ?? 0) > 0)
        expired += 1;
    }
    const flag = flags.find((f) => f.kind === 'ttl-mismatch' && f.sessionId.startsWith('0a725fb5'));
    expect(flag?.evidence['gapsChangedByOtherTtl']).toBe(expired);
    expect(flag?.stake).toMatchObject({ kind: 'priced' });
  });
});
