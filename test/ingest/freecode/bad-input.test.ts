import { describe, expect, it } from 'vitest';
import type { IngestIssue, Session } from '../../../src/session/model.js';
import { loadAll } from './load.js';

const HOME = 'test/fixtures/freecode/bad-input';
const BAD = 'd4e5f6a7-0000-4000-8000-000000000004';
const BROKEN_META = 'e5f6a7b8-0000-4000-8000-000000000005';
const ROLLOUT = `${HOME}/rollout/sessions/${BAD}/events.jsonl`;
const MESSAGES = `${HOME}/sessions/home__dev__bad/${BAD}/messages.jsonl`;

async function load(): Promise<{ sessions: Map<string, Session>; issues: IngestIssue[] }> {
  const { sessions, issues } = await loadAll([HOME]);
  return {
    sessions: new Map(sessions.map((s) => [s.id, s])),
    issues: [...issues, ...sessions.flatMap((s) => s.issues)],
  };
}

describe('bad input becomes ingest issues, each bad line once with its line number', () => {
  it('reports every bad rollout line once: malformed JSON, unknown type, missing field, repaired usage, truncated last line', async () => {
    const { issues } = await load();
    expect(issues.filter((i) => i.file === ROLLOUT).map((i) => [i.line, i.reason.replace(/\(.*\)$/, '(…)')])).toEqual([
      [4, 'malformed JSON (…)'],
      [5, 'unknown event type "model.teleport"'],
      [6, 'function.call: missing field "tool"'],
      [9, 'cache read + write (1800) exceed the inclusive inputTokens (1500); prompt taken as 1800'],
      [11, 'truncated last line'],
    ]);
  });

  it('reports every bad store line once: malformed JSON, unknown role, missing id, unknown part type (+ repaired usage)', async () => {
    const { issues } = await load();
    expect(
      issues.filter((i) => i.file === MESSAGES).map((i) => [i.line, i.reason.replace(/\(Unexpected.*\)$/, '(…)')]),
    ).toEqual([
      [3, expect.stringMatching(/^malformed JSON/)],
      [4, 'message: unexpected role "system"'],
      [5, 'message: missing field "id"'],
      [
        6,
        'part 0: unknown part type "hologram"; cache read + write (1800) exceed the inclusive inputTokens (1500); prompt taken as 1800',
      ],
    ]);
  });

  it('still reads the good lines around the bad ones (CRLF lines included)', async () => {
    const session = (await load()).sessions.get(BAD);
    expect(session?.requests.map((r) => r.usage?.promptTokens)).toEqual([1000, 1800]);
    expect(session?.items.map((i) => [i.kind, i.text])).toEqual([
      ['user', 'Read the README and summarize it.'],
      ['assistant', ''],
      // The output line was malformed: the store still has the result.
      ['tool_result', '# Readme\nA small tool.'],
      ['assistant', 'Here.'],
    ]);
    expect(session?.issues).toHaveLength(9);
  });

  it('reports a malformed meta.json and a memory.json summary without content, and keeps the session', async () => {
    const { sessions, issues } = await load();
    const session = sessions.get(BROKEN_META);
    expect(session?.requests.map((r) => [r.model, r.usage?.promptTokens])).toEqual([['(unknown)', 900]]);
    expect(
      issues.filter((i) => i.file.includes(BROKEN_META)).map((i) => [i.line, i.reason.replace(/\(.*\)$/, '(…)')]),
    ).toEqual([
      [0, 'meta.json: malformed JSON (…)'],
      [0, 'memory.json summaries[0]: missing field "content"'],
    ]);
    expect(session?.events).toMatchObject([{ kind: 'compaction', trigger: 'unknown', summaryItemId: 'summary-ok' }]);
  });
});
