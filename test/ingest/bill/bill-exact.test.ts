/**
 * The bill is exact on modern Claude Code and Codex logs: each case on a fixture written by hand
 * from formats.md (`test/fixtures/bill`), its totals computed by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { discoverSessions, loadSession, newIngestRun, type SessionSource } from '../../../src/ingest/index.js';
import { isIngestNote, SessionSchema, type Session } from '../../../src/session/model.js';
import { summarizeSession } from '../../../src/session/summary.js';
import { cli } from '../../cli/run.js';

const ROOT = 'test/fixtures/bill';
const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const P = '0190bbbb-0000-7000-8000-000000000001';
const C = '0190bbbb-0000-7000-8000-000000000002';
const O = '0190bbbb-0000-7000-8000-000000000003';

async function loadAll(paths: readonly string[]): Promise<Session[]> {
  const { sources } = await discoverSessions(paths);
  const run = newIngestRun();
  const sessions: Session[] = [];
  for (const source of sources)
    sessions.push(SessionSchema.parse(await loadSession(source, { content: 'sizes', run })));
  return sessions;
}

function byId(sessions: readonly Session[], id: string): Session {
  const session = sessions.find((s) => s.id === id);
  if (session === undefined) throw new Error(`no session ${id}`);
  return session;
}

const outputs = (session: Session): (number | null)[] => session.requests.map((r) => r.usage?.outputTokens ?? null);

describe('Claude Code: one session across files, each response once', () => {
  it('merges the session id found in two project folders and its subagents, wherever their folder (cases 2, 6)', async () => {
    const { sources } = await discoverSessions([`${ROOT}/claude`]);
    const a = sources.find((s) => s.sessionId === A) as Extract<SessionSource, { format: 'claude-code' }>;
    expect(a.files.mainFiles).toEqual([
      `${ROOT}/claude/projects/-home-me-app/${A}.jsonl`,
      `${ROOT}/claude/projects/-home-me-other/${A}.jsonl`,
    ]);
    // agent-amoved sits under ffffffff…/subagents but its records name session A.
    expect(a.files.agentFiles.map((f) => f.agentId)).toEqual(['acompact-1', 'amoved']);
    expect(sources.map((s) => s.sessionId)).not.toContain('ffffffff-0000-4000-8000-00000000000f');
    expect(sources.map((s) => s.sessionId)).not.toContain('agent-amoved');
  });

  it('counts A exactly: largest output per response across files, all-zero usage apart, malformed records as issues (cases 2–5)', async () => {
    const a = byId(await loadAll([`${ROOT}/claude`]), A);
    // req_1 180 (main; its copies in the other folder and in acompact are not counted again),
    // req_2 1200 (the main file has only the partial line of 5; the final one is in acompact),
    // req_3 all zero → no usage, req_4 40 (second folder), req_9 6000 (acompact's own), req_20 7 (amoved).
    expect(a.requests.map((r) => [r.agentId, r.usage?.outputTokens ?? null])).toEqual([
      [null, 180],
      [null, 1200],
      [null, null],
      [null, 40],
      ['acompact-1', 6000],
      ['amoved', 7],
    ]);
    expect(summarizeSession(a)).toMatchObject({
      requests: 5,
      requestsWithoutUsage: 1,
      // (3+20000+500) + (4+20700+300) + (5+21000+200) + (2+21000+0) + (10+0+100)
      promptTokens: 20503 + 21004 + 21205 + 21002 + 110,
      cacheReadTokens: 20000 + 20700 + 21000 + 21000,
      cacheWriteTokens: 500 + 300 + 200 + 100,
      outputTokens: 180 + 1200 + 40 + 6000 + 7,
      issues: 2,
    });
    const problems = a.issues.filter((i) => !isIngestNote(i));
    expect(problems.map((i) => [i.file.split('/').slice(-2).join('/'), i.line])).toEqual([
      [`-home-me-app/${A}.jsonl`, 6],
      [`-home-me-app/${A}.jsonl`, 8],
    ]);
    expect(problems[0]?.reason).toMatch(/assistant record whose "message" has none of id, model, content, usage, role/);
    expect(problems[1]?.reason).toMatch(/"message" is a string/);
    expect(a.issues.filter(isIngestNote).map((i) => [i.effect, i.line])).toEqual([['usage-not-reported', 7]]);
    // Items: the second folder's copy of a1/a2 is not a second pair of assistant items.
    expect(a.items.filter((i) => i.kind === 'assistant').map((i) => i.id)).toEqual(['a1', 'a2', 'a3', 'a5', 'a7']);
  });

  it('does not count a resumed copy twice across session ids: the first claim wins, and a note says so (case 2)', async () => {
    const sessions = await loadAll([`${ROOT}/claude`]);
    const b = byId(sessions, B);
    expect(outputs(b)).toEqual([60]);
    expect(b.issues).toEqual([
      expect.objectContaining({
        line: 2,
        effect: 'counted-elsewhere',
        reason: expect.stringContaining(`1 response already counted in session ${A}`),
      }),
    ]);
    // Read alone, B is a session of its own and counts its copy.
    const alone = await loadAll([`${ROOT}/claude/projects/-home-me-app/${B}.jsonl`]);
    expect(outputs(byId(alone, B))).toEqual([180, 60]);
  });

  it('a transcript named alone brings its <id>/subagents/ files (case 6)', async () => {
    const [a] = await loadAll([`${ROOT}/claude/projects/-home-me-app/${A}.jsonl`]);
    expect(a?.files.map((f) => f.split('/').slice(-1)[0])).toEqual([`${A}.jsonl`, 'agent-acompact-1.jsonl']);
    expect(a === undefined ? [] : outputs(a)).toEqual([180, 1200, null, 6000]);
  });
});

describe('Codex: forked sub-agent rollouts', () => {
  it('counts the child only for its own requests, in the parent session with its agentId (case 1)', async () => {
    const sessions = await loadAll([`${ROOT}/codex`]);
    expect(sessions.map((s) => s.id)).toEqual([P]);
    const p = byId(sessions, P);
    // Parent: 1000/0/50, 1200/1000/30, 1300/1000/20 (the doubled event skipped). Child C after its
    // replay of P's first two requests (totals 1050, 2280): 800/500/40 and 900/600/30.
    expect(
      p.requests.map((r) => [
        r.agentId,
        r.model,
        r.usage?.promptTokens,
        r.usage?.cacheReadTokens,
        r.usage?.outputTokens,
      ]),
    ).toEqual([
      [null, 'gpt-5.1-codex-max', 1000, 0, 50],
      [null, 'gpt-5.1-codex-max', 1200, 1000, 30],
      [null, 'gpt-5.1-codex-max', 1300, 1000, 20],
      [C, 'gpt-5.4-mini', 800, 500, 40],
      [C, 'gpt-5.4-mini', 900, 600, 30],
    ]);
    expect(summarizeSession(p)).toMatchObject({
      requests: 5,
      promptTokens: 5200,
      cacheReadTokens: 3100,
      outputTokens: 170,
      issues: 0,
    });
    expect(p.issues).toEqual([
      expect.objectContaining({
        line: 2,
        effect: 'fork-replay',
        reason: expect.stringContaining('its 2 requests there are the parent'),
      }),
    ]);
    // Without its sub-agent: the parent alone.
    const main = p.requests.filter((r) => r.agentId === null);
    expect(main.reduce((n, r) => n + (r.usage?.promptTokens ?? 0), 0)).toBe(3500);
  });

  it('a child read without its parent is its own session, naming the parent, still only its own requests (case 1)', async () => {
    const child = await loadAll([`${ROOT}/codex/sessions/2026/02/03/rollout-2026-02-03T11-00-07-${C}.jsonl`]);
    expect(child.map((s) => [s.id, s.parentSessionId, outputs(s)])).toEqual([[C, P, [40, 30]]]);
    const orphan = byId(await loadAll([`${ROOT}/codex-orphan`]), O);
    // Its file replays two requests of the absent parent (totals 5300, 11500); its own: 400/100/10.
    expect(orphan.parentSessionId).toBe('0190bbbb-0000-7000-8000-0000000000ff');
    expect(
      orphan.requests.map((r) => [r.usage?.promptTokens, r.usage?.cacheReadTokens, r.usage?.outputTokens]),
    ).toEqual([[400, 100, 10]]);
    // The replayed history is the child's context: its items are kept.
    expect(orphan.items.filter((i) => i.kind === 'user').length).toBe(2);
  });
});

describe('the ingest summary (case 7) and notes', () => {
  it('counts the two skipped lines as two lines in one file, and names the notes apart', async () => {
    const { code, stderr } = await cli(['sessions', ROOT, '--json']);
    expect(code).toBe(0);
    expect(stderr.split('\n')).toEqual([
      'cachecost: 2 lines skipped in 1 file; --verbose lists them',
      'cachecost: note: 1 request without reported usage (counted apart, not priced); 1 file holding responses another session counted ' +
        "(resumed copies, not counted twice); 2 forked rollouts whose copy of the parent's history was not counted again; --verbose lists them",
      '',
    ]);
  });

  it('--strict fails on the skipped lines, never on notes alone', async () => {
    expect((await cli(['sessions', `${ROOT}/claude`, '--strict'])).code).toBe(2);
    expect((await cli(['sessions', `${ROOT}/codex`, '--strict', '--json'])).code).toBe(0);
  });

  it('report excludes the request without usage from the bill, never as $0', async () => {
    const { code, stdout } = await cli(['report', `${ROOT}/claude`, '--by', 'session', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      lines: { key: string; requests: number; outputTokens: number }[];
      excluded: { requestsWithoutUsage: number };
    };
    expect(report.lines.map((l) => [l.key, l.requests, l.outputTokens])).toEqual(
      expect.arrayContaining([
        [A, 5, 7427],
        [B, 1, 60],
      ]),
    );
    expect(report.excluded.requestsWithoutUsage).toBe(1);
  });
});
