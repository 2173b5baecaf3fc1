import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverFreecode } from '../../../src/ingest/freecode/discover.js';
import { CachecostError } from '../../../src/session/errors.js';
import { SPEC12 } from './fixture-input.js';

const FULL = {
  sessionId: SPEC12.sessionId,
  rolloutFile: SPEC12.rollout,
  messagesFile: SPEC12.messagesAfterCompaction,
  metaFile: SPEC12.meta,
  projectDir: 'home__dev__work__toml_h_parser',
  memoryFile: SPEC12.memory,
};

describe('discoverFreecode', () => {
  it.each([
    ['the FreeCode home', SPEC12.home],
    ['the rollout directory', `${SPEC12.home}/rollout`],
    ['the store sessions directory', `${SPEC12.home}/sessions`],
    ['a store session directory', `${SPEC12.home}/sessions/home__dev__work__toml_h_parser/${SPEC12.sessionId}`],
    ['a rollout session directory', `${SPEC12.home}/rollout/sessions/${SPEC12.sessionId}`],
    ['the rollout file', SPEC12.rollout],
    ['meta.json', SPEC12.meta],
    ['memory.json', SPEC12.memory],
  ])('finds every file of the session from %s', async (_what, path) => {
    const { sessions, issues } = await discoverFreecode([path]);
    expect(issues).toEqual([]);
    expect(sessions).toHaveLength(1);
    const [found] = sessions;
    expect({ ...found, rolloutFile: found?.rolloutFile?.replace(/^\.\//, '') }).toEqual(FULL);
  });

  it('finds sessions in any directory holding FreeCode trees, sorted by id, each once', async () => {
    const { sessions } = await discoverFreecode(['test/fixtures/freecode', SPEC12.home]);
    expect(sessions.map((s) => s.sessionId)).toEqual([
      '7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34',
      'a1b2c3d4-0000-4000-8000-000000000001',
      'b2c3d4e5-0000-4000-8000-000000000002',
      'c3d4e5f6-0000-4000-8000-000000000003',
      'd4e5f6a7-0000-4000-8000-000000000004',
      'e5f6a7b8-0000-4000-8000-000000000005',
    ]);
  });

  it('throws PATH_NOT_FOUND for a path that does not exist and BAD_ARGUMENT for a file that is not a log', async () => {
    await expect(discoverFreecode(['test/fixtures/freecode/nope'])).rejects.toMatchObject({
      code: 'PATH_NOT_FOUND',
      message: 'no such file or directory: test/fixtures/freecode/nope',
    });
    await expect(discoverFreecode(['package.json'])).rejects.toBeInstanceOf(CachecostError);
    await expect(discoverFreecode(['package.json'])).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });

  it('reports a second copy of a session file and a memory.json with no logs, instead of dropping them silently', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cachecost-discover-'));
    for (const home of ['a', 'b']) {
      mkdirSync(join(root, home, 'rollout', 'sessions', 's1'), { recursive: true });
      writeFileSync(join(root, home, 'rollout', 'sessions', 's1', 'events.jsonl'), '');
    }
    mkdirSync(join(root, 'a', 'memory', 'lonely'), { recursive: true });
    writeFileSync(join(root, 'a', 'memory', 'lonely', 'memory.json'), '{}');
    const { sessions, issues } = await discoverFreecode([root]);
    expect(sessions.map((s) => s.sessionId)).toEqual(['s1']);
    expect(issues.map((i) => i.reason)).toEqual([
      expect.stringMatching(/^another events.jsonl for session s1 was already found/),
      'memory.json without a rollout log or session store for session lonely; skipped',
    ]);
  });
});
