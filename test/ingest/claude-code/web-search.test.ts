/**
 * Web searches the provider ran (`usage.server_tool_use.web_search_requests`, Claude Code 2.1.x,
 * formats.md §1.3) are billed per search, not in tokens: the bill leaves them out and says so, one
 * note per counted response that ran any (the most a line of the response reports), whatever file
 * or copy the response was read from, with the cache as without it.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverSessions, loadSession, newIngestRun } from '../../../src/ingest/index.js';
import type { Session } from '../../../src/session/model.js';
import { cli } from '../../cli/run.js';

const root = mkdtempSync(join(tmpdir(), 'cachecost-web-search-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const S = 'cccccccc-0000-4000-8000-00000000000c';

function assistant(n: number, message: number, output: number, serverTools: unknown): string {
  return JSON.stringify({
    type: 'assistant',
    uuid: `a${n}`,
    parentUuid: n === 1 ? 'u1' : `a${n - 1}`,
    isSidechain: false,
    sessionId: S,
    version: '2.1.87',
    timestamp: `2026-01-01T00:00:0${n}.000Z`,
    requestId: `req_${message}`,
    message: {
      id: `msg_${message}`,
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text: 'ok' }],
      usage: {
        input_tokens: 3,
        cache_creation_input_tokens: 500,
        cache_read_input_tokens: 20_000,
        output_tokens: output,
        ...(serverTools === undefined ? {} : { server_tool_use: serverTools }),
      },
    },
  });
}

const USER = JSON.stringify({
  type: 'user',
  uuid: 'u1',
  parentUuid: null,
  isSidechain: false,
  sessionId: S,
  cwd: '/home/me/app',
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content: 'look it up' },
});

/**
 * A session: msg_1 written on two lines (the first with no search count, the last with 2), msg_2
 * without `server_tool_use`, msg_3 with a count that is not one; its compaction agent replays msg_1
 * with the same ids (§1.5). `searches` = false writes every line without `server_tool_use`.
 */
function writeSession(name: string, searches: boolean): { dir: string; main: string } {
  const tools = (count: unknown) => (searches ? { web_search_requests: count, web_fetch_requests: 1 } : undefined);
  const dir = join(root, name);
  const project = join(dir, 'projects', '-home-me-app');
  mkdirSync(join(project, S, 'subagents'), { recursive: true });
  const main = join(project, `${S}.jsonl`);
  writeFileSync(
    main,
    `${[USER, assistant(1, 1, 1, tools(0)), assistant(2, 1, 50, tools(2)), assistant(3, 2, 9, undefined), assistant(4, 3, 7, tools('x'))].join('\n')}\n`,
  );
  writeFileSync(join(project, S, 'subagents', 'agent-acompact-1.jsonl'), `${assistant(1, 1, 50, tools(2))}\n`);
  return { dir, main };
}

async function loadOne(dir: string): Promise<Session> {
  const { sources } = await discoverSessions([dir]);
  const run = newIngestRun();
  const sessions: Session[] = [];
  for (const source of sources) sessions.push(await loadSession(source, { content: 'sizes', run }));
  const session = sessions.find((s) => s.id === S);
  if (session === undefined) throw new Error('no session');
  return session;
}

const searchNotes = (session: Session) => session.issues.filter((issue) => issue.effect === 'unbilled-web-search');

describe('web searches left out of the bill', () => {
  it('notes each counted response that ran any, once, with the most a line of it reports', async () => {
    const { dir, main } = writeSession('noted', true);
    const session = await loadOne(dir);
    expect(session.requests.map((r) => r.usage?.outputTokens)).toEqual([50, 9, 7]);
    expect(searchNotes(session)).toEqual([
      {
        file: main,
        line: 2,
        reason:
          "response msg_1:req_1 (claude-sonnet-4-6) ran 2 web searches on the provider's side: billed per search, " +
          'not in tokens, and not in this bill',
        effect: 'unbilled-web-search',
      },
    ]);
    // Nothing else about the session changes.
    const plain = await loadOne(writeSession('plain', false).dir);
    expect(plain.issues).toEqual(session.issues.filter((issue) => issue.effect !== 'unbilled-web-search'));
    expect(plain.requests).toEqual(session.requests);
  });

  it('bills the tokens as without searches, and says what it left out; --strict is not failed by the note', async () => {
    const noted = writeSession('cli-noted', true).dir;
    const plain = writeSession('cli-plain', false).dir;
    const withSearches = await cli(['report', noted, '--by', 'session', '--json', '--no-cache']);
    const without = await cli(['report', plain, '--by', 'session', '--json', '--no-cache']);
    expect(withSearches.code).toBe(0);
    const lines = (stdout: string) => (JSON.parse(stdout) as { lines: unknown[]; total: unknown }).lines;
    expect(lines(withSearches.stdout)).toEqual(lines(without.stdout));
    expect(withSearches.stderr).toBe(
      'cachecost: note: 1 response with web searches, billed per search and left out of the bill; --verbose lists them\n',
    );
    expect(without.stderr).toBe('');
    expect((await cli(['sessions', noted, '--strict', '--no-cache'])).code).toBe(0);
  });

  it('notes the same with the cache, on a first run, a warm one and after the transcript grew', async () => {
    const { dir, main } = writeSession('cached', true);
    const env = { CACHECOST_CACHE_DIR: join(root, 'cache') };
    const argv = ['report', dir, '--by', 'session', '--json', '--verbose'];
    const uncached = async () => cli([...argv, '--no-cache']);
    const first = await cli(argv, env);
    expect(first).toEqual(await uncached());
    expect(await cli(argv, env)).toEqual(first);
    appendFileSync(main, `${assistant(5, 4, 11, { web_search_requests: 1 })}\n`);
    const grown = await cli(argv, env);
    expect(grown).toEqual(await uncached());
    expect(grown.stderr.match(/web search/g)).toHaveLength(3);
  });
});
