import { describe, expect, it } from 'vitest';
import { discoverSessions, loadSession } from '../../../src/ingest/index.js';
import { SessionSchema } from '../../../src/session/model.js';

describe('SWE-agent trajectories', () => {
  it('are totals-only sessions; bad totals are issues, not a throw', async () => {
    const { sources } = await discoverSessions(['test/fixtures/swe-agent']);
    const sessions = await Promise.all(
      sources.map(async (s) => SessionSchema.parse(await loadSession(s, { content: 'sizes' }))),
    );
    expect(sessions.map((s) => [s.id, s.totalsOnly, s.requests.length])).toEqual([
      ['bad', { promptTokens: 0, outputTokens: 0, requests: 0 }, 0],
      ['good', { promptTokens: 12000, outputTokens: 300, requests: 4 }, 0],
    ]);
    expect(sessions[0]?.issues.map((i) => i.reason)).toEqual([
      'info.model_stats.api_calls missing; taken as 0',
      'usage invalid: info.model_stats.tokens_sent is not a plausible count (the string "many"); taken as 0',
      'info.model_stats.tokens_received missing; taken as 0',
    ]);
  });
});
