/**
 * "Nothing lost, nothing counted twice" as a property over Claude Code and Codex logs written to a
 * temporary directory and read by the real discovery and loaders: however the requests of a run
 * are laid out on disk — a session split across files, files copied (acompact copies, resumed
 * sessions), moved between project folders, written in any order, forked sub-agent rollouts added
 * with or without their parent — the totals over unique requests are the same; and corrupting one
 * line adds exactly one ingest issue.
 *
 * Checked against deliberate bugs (each made this fail within the default runs):
 * - Claude Code: deduplicating responses per file instead of across the session's files (an acompact
 *   copy or a second project folder counted again); taking a response's last line in reading order
 *   instead of its largest (a copy holding only partial lines, read after the main transcript);
 * - Codex: counting a fork's replayed `token_count` events as the child's requests.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { discoverSessions, loadSession, newIngestRun } from '../../../src/ingest/index.js';
import { isIngestNote } from '../../../src/session/model.js';

type Totals = {
  requests: number;
  withoutUsage: number;
  prompt: number;
  read: number;
  write: number;
  output: number;
  problems: number;
};
type FileSpec = { path: string; lines: string[] };

async function totalsOf(files: readonly FileSpec[], order: readonly number[]): Promise<Totals> {
  const root = mkdtempSync(join(tmpdir(), 'cachecost-bill-'));
  try {
    for (const i of order) {
      const file = files[i];
      if (file === undefined) continue;
      mkdirSync(dirname(join(root, file.path)), { recursive: true });
      writeFileSync(join(root, file.path), `${file.lines.join('\n')}\n`);
    }
    const { sources, issues } = await discoverSessions([root]);
    const t: Totals = {
      requests: 0,
      withoutUsage: 0,
      prompt: 0,
      read: 0,
      write: 0,
      output: 0,
      problems: issues.filter((i) => !isIngestNote(i)).length,
    };
    const run = newIngestRun();
    for (const source of sources) {
      const session = await loadSession(source, { content: 'sizes', run });
      t.problems += session.issues.filter((i) => !isIngestNote(i)).length;
      for (const request of session.requests) {
        if (request.usage === null) {
          t.withoutUsage += 1;
          continue;
        }
        t.requests += 1;
        t.prompt += request.usage.promptTokens;
        t.read += request.usage.cacheReadTokens;
        t.write += request.usage.cacheWriteTokens;
        t.output += request.usage.outputTokens;
      }
    }
    return t;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Replaces line `line` (0-based, never a file's first line, which says what the file is) with malformed JSON. */
function corrupt(files: readonly FileSpec[], pick: number, linePick: number): FileSpec[] | null {
  const candidates = files.flatMap((f, i) => (f.lines.length > 1 ? [i] : []));
  if (candidates.length === 0) return null;
  const index = candidates[pick % candidates.length] ?? 0;
  return files.map((f, i) => {
    if (i !== index) return f;
    const line = 1 + (linePick % (f.lines.length - 1));
    return { ...f, lines: f.lines.map((text, n) => (n === line ? '{"type":"assistant","message":{"id":' : text)) };
  });
}

// ---------------------------------------------------------------- Claude Code

type Response = {
  readonly usage: readonly [number, number, number];
  readonly outputs: readonly number[];
  readonly zero: boolean;
  readonly agent: number | null;
  readonly session: number;
};
type ClaudeLayout = {
  readonly split: readonly [number, number];
  readonly folders: readonly [number, number];
  readonly acompact: boolean;
  readonly finalOnlyInCopy: boolean;
  readonly resume: boolean;
  readonly agentsMoved: boolean;
};

const FOLDERS = ['-home-me-app', '-home-me-zzz', 'C--work-app'];
const sid = (n: number): string => `${'abcdef'[n] ?? 'f'}${'0'.repeat(7)}-0000-4000-8000-00000000000${n}`;
const at = (i: number, j: number): string =>
  new Date(Date.UTC(2026, 1, 3, 10, 0, 0) + i * 60_000 + j * 1000).toISOString();

function assistantLine(
  session: string,
  r: Response,
  i: number,
  j: number,
  output: number,
  agent: string | null,
): string {
  const [input, read, write] = r.zero ? [0, 0, 0] : r.usage;
  return JSON.stringify({
    type: 'assistant',
    uuid: `r${i}-${j}`,
    parentUuid: null,
    isSidechain: agent !== null,
    sessionId: session,
    timestamp: at(i, j),
    ...(agent === null ? {} : { agentId: agent }),
    requestId: `req_${i}`,
    message: {
      id: `msg_${i}`,
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text: 'x' }],
      usage: {
        input_tokens: input,
        cache_read_input_tokens: read,
        cache_creation_input_tokens: write,
        output_tokens: r.zero ? 0 : output,
      },
    },
  });
}

function userLine(session: string, i: number, agent: string | null): string {
  return JSON.stringify({
    type: 'user',
    uuid: `q${i}`,
    parentUuid: null,
    isSidechain: agent !== null,
    sessionId: session,
    timestamp: at(i, 0),
    message: { role: 'user', content: 'go' },
  });
}

/** The lines of response i (in `session`), the largest output last unless `withoutFinal`. */
function responseLines(session: string, r: Response, i: number, agent: string | null, withoutFinal: boolean): string[] {
  const max = Math.max(...r.outputs);
  const lines = r.outputs.filter((o) => o !== max).map((o, j) => assistantLine(session, r, i, j + 1, o, agent));
  if (!withoutFinal) lines.push(assistantLine(session, r, i, 9, max, agent));
  return lines;
}

function claudeFiles(responses: readonly Response[], layout: ClaudeLayout): FileSpec[] {
  const files: FileSpec[] = [];
  for (const s of [0, 1]) {
    const id = sid(s);
    const own = responses.map((r, i) => ({ r, i })).filter(({ r }) => r.session === s);
    const main = own.filter(({ r }) => r.agent === null);
    if (own.length === 0) continue;
    const cut = Math.min(main.length, layout.split[s] ?? 0);
    const parts = cut === 0 || cut === main.length ? [main] : [main.slice(0, cut), main.slice(cut)];
    const withoutFinal = (i: number): boolean => layout.acompact && layout.finalOnlyInCopy && i % 2 === 0;
    parts.forEach((part, p) => {
      const folder = FOLDERS[(layout.folders[p] ?? 0) % FOLDERS.length] ?? FOLDERS[0];
      const lines = [
        userLine(id, part[0]?.i ?? 0, null),
        ...part.flatMap(({ r, i }) => [userLine(id, i, null), ...responseLines(id, r, i, null, withoutFinal(i))]),
      ];
      files.push({ path: `projects/${folder}/${id}.jsonl`, lines });
    });
    const home = FOLDERS[layout.folders[0] % FOLDERS.length] ?? FOLDERS[0];
    if (layout.acompact) {
      // The compaction summariser's copy of the main transcript's responses: with `finalOnlyInCopy`
      // half the final lines are only here, and the other half only in the main transcript.
      const partial = (i: number): boolean => layout.finalOnlyInCopy && i % 2 === 1;
      const lines = [
        userLine(id, 0, 'acompact-1'),
        ...main.flatMap(({ r, i }) => responseLines(id, r, i, 'acompact-1', partial(i))),
      ];
      files.push({ path: `projects/${home}/${id}/subagents/agent-acompact-1.jsonl`, lines });
    }
    const agents = new Set(own.flatMap(({ r }) => (r.agent === null ? [] : [r.agent])));
    for (const agent of agents) {
      const name = `a${s}${agent}`;
      const folder = layout.agentsMoved ? sid(5) : id;
      const lines = [
        userLine(id, 0, name),
        ...own.filter(({ r }) => r.agent === agent).flatMap(({ r, i }) => responseLines(id, r, i, name, false)),
      ];
      files.push({ path: `projects/${home}/${folder}/subagents/agent-${name}.jsonl`, lines });
    }
    if (layout.resume && s === 0 && main.length > 0) {
      // A resumed session: another id whose file starts with a copy of session 0's responses.
      const resumed = sid(4);
      const lines = [
        userLine(resumed, 0, null),
        ...main.flatMap(({ r, i }) => responseLines(resumed, r, i, null, false)),
      ];
      files.push({ path: `projects/${home}/${resumed}.jsonl`, lines });
    }
  }
  return files;
}

function expectedClaude(responses: readonly Response[]): Omit<Totals, 'problems'> {
  const t = { requests: 0, withoutUsage: 0, prompt: 0, read: 0, write: 0, output: 0 };
  for (const r of responses) {
    const [input, read, write] = r.usage;
    if (r.zero) {
      t.withoutUsage += 1;
      continue;
    }
    t.requests += 1;
    t.prompt += input + read + write;
    t.read += read;
    t.write += write;
    t.output += Math.max(...r.outputs);
  }
  return t;
}

const responseArb: fc.Arbitrary<Response> = fc.record({
  usage: fc.tuple(fc.integer({ min: 1, max: 50 }), fc.nat({ max: 30_000 }), fc.nat({ max: 2_000 })),
  outputs: fc.uniqueArray(fc.integer({ min: 1, max: 5_000 }), { minLength: 1, maxLength: 3 }),
  zero: fc.boolean(),
  agent: fc.option(fc.integer({ min: 1, max: 2 }), { nil: null, freq: 3 }),
  session: fc.integer({ min: 0, max: 1 }),
});

const layoutArb: fc.Arbitrary<ClaudeLayout> = fc.record({
  split: fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 4 })),
  folders: fc.tuple(fc.nat({ max: 2 }), fc.nat({ max: 2 })).filter(([a, b]) => a !== b),
  acompact: fc.boolean(),
  finalOnlyInCopy: fc.boolean(),
  resume: fc.boolean(),
  agentsMoved: fc.boolean(),
});

const SIMPLE: ClaudeLayout = {
  split: [0, 0],
  folders: [0, 1],
  acompact: false,
  finalOnlyInCopy: false,
  resume: false,
  agentsMoved: false,
};

describe('every token counted once (property)', () => {
  it('Claude Code: splitting, copying, resuming, moving and reordering files never changes the totals; one corrupt line is one issue', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(responseArb, { minLength: 1, maxLength: 7 }),
        layoutArb,
        fc.nat(),
        fc.nat(),
        fc.nat(),
        async (responses, layout, seed, pick, linePick) => {
          const expected = expectedClaude(responses);
          const plain = claudeFiles(responses, SIMPLE);
          expect(
            await totalsOf(
              plain,
              plain.map((_, i) => i),
            ),
          ).toEqual({ ...expected, problems: 0 });
          const files = claudeFiles(responses, layout);
          const order = files.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 101) - ((b * 7919 + seed) % 101));
          const laidOut = await totalsOf(files, order);
          expect(laidOut).toEqual({ ...expected, problems: 0 });
          const corrupted = corrupt(files, pick, linePick);
          if (corrupted !== null) expect((await totalsOf(corrupted, order)).problems).toBe(1);
        },
      ),
      { numRuns: 25 },
    );
  });

  // -------------------------------------------------------------- Codex

  type Usage = readonly [number, number, number]; // input (inclusive), cached, output
  type Child = { readonly forkAfter: number; readonly own: readonly Usage[]; readonly subagent: boolean };

  const usageArb: fc.Arbitrary<Usage> = fc
    .tuple(fc.integer({ min: 1, max: 40_000 }), fc.nat({ max: 100 }), fc.integer({ min: 1, max: 3_000 }))
    .map(([input, pct, output]) => [input, Math.floor((input * pct) / 100), output] as const);

  const P = '0190cccc-0000-7000-8000-000000000000';
  const childId = (n: number): string => `0190cccc-0000-7000-8000-00000000000${n + 1}`;
  const ts = (ms: number): string => new Date(Date.UTC(2026, 1, 3, 9, 0, 0) + ms).toISOString();

  function tokenCount(ms: number, total: Usage, last: Usage): string {
    const u = ([i, c, o]: Usage): object => ({
      input_tokens: i,
      cached_input_tokens: c,
      output_tokens: o,
      reasoning_output_tokens: 0,
      total_tokens: i + o,
    });
    return JSON.stringify({
      timestamp: ts(ms),
      type: 'event_msg',
      payload: { type: 'token_count', info: { total_token_usage: u(total), last_token_usage: u(last) } },
    });
  }
  const add = (a: Usage, b: Usage): Usage => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
  const meta = (ms: number, id: string, extra: object = {}): string =>
    JSON.stringify({
      timestamp: ts(ms),
      type: 'session_meta',
      payload: { id, cwd: '/w', model_provider: 'openai', ...extra },
    });
  const turn = (ms: number): string =>
    JSON.stringify({ timestamp: ts(ms), type: 'turn_context', payload: { model: 'gpt-5.2-codex' } });
  const say = (ms: number, role: string): string =>
    JSON.stringify({
      timestamp: ts(ms),
      type: 'response_item',
      payload: { type: 'message', role, content: [{ type: 'output_text', text: 'x' }] },
    });

  /** The parent's history lines after its meta, up to request `upTo` (exclusive), stamped by `stamp`. */
  function parentHistory(
    requests: readonly Usage[],
    doubled: readonly boolean[],
    upTo: number,
    stamp: (n: number) => number,
  ): string[] {
    const lines = [turn(stamp(0)), say(stamp(0), 'user')];
    let total: Usage = [0, 0, 0];
    requests.slice(0, upTo).forEach((r, n) => {
      total = add(total, r);
      lines.push(say(stamp(n + 1), 'assistant'), tokenCount(stamp(n + 1), total, r));
      if (doubled[n] === true) lines.push(tokenCount(stamp(n + 1) + 1, total, r));
    });
    return lines;
  }

  function codexFiles(
    parent: readonly Usage[],
    doubled: readonly boolean[],
    children: readonly Child[],
    parentPresent: boolean,
    folders: readonly number[],
  ): FileSpec[] {
    const dir = (n: number): string =>
      ['sessions/2026/02/03', 'sessions/2026/02/04', 'elsewhere/codex/sessions/2026/02/03'][(folders[n] ?? 0) % 3] ??
      'sessions';
    const files: FileSpec[] = [];
    if (parentPresent) {
      files.push({
        path: `${dir(0)}/rollout-2026-02-03T09-00-00-${P}.jsonl`,
        lines: [meta(0, P), ...parentHistory(parent, doubled, parent.length, (n) => n * 10_000)],
      });
    }
    children.forEach((child, c) => {
      const id = childId(c);
      const forkAfter = Math.min(child.forkAfter, parent.length);
      const forkMs = 1_000_000 + c * 100_000;
      const source = child.subagent
        ? {
            source: {
              subagent: { thread_spawn: { parent_thread_id: P, depth: 1, agent_nickname: 'n', agent_role: 'r' } },
            },
          }
        : {};
      const lines = [
        meta(forkMs, id, { forked_from_id: P, ...source }),
        meta(forkMs + 1, P),
        ...parentHistory(parent, doubled, forkAfter, () => forkMs + 2),
      ];
      let total = parent.slice(0, forkAfter).reduce<Usage>(add, [0, 0, 0]);
      lines.push(say(forkMs + 3, 'user'));
      child.own.forEach((r, n) => {
        total = add(total, r);
        const ms = forkMs + 5_000 * (n + 1);
        lines.push(say(ms, 'assistant'), tokenCount(ms, total, r), tokenCount(ms + 10, total, r));
      });
      files.push({ path: `${dir(c + 1)}/rollout-2026-02-03T09-30-00-${id}.jsonl`, lines });
    });
    return files;
  }

  it('Codex: adding forks (with or without the parent), doubled events, moving and reordering files never changes the totals; one corrupt line is one issue', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(usageArb, { minLength: 1, maxLength: 5 }),
        fc.array(fc.boolean(), { maxLength: 5 }),
        fc.array(
          fc.record({
            forkAfter: fc.nat({ max: 5 }),
            own: fc.array(usageArb, { minLength: 1, maxLength: 3 }),
            subagent: fc.boolean(),
          }),
          { maxLength: 3 },
        ),
        fc.boolean(),
        fc.array(fc.nat({ max: 2 }), { minLength: 4, maxLength: 4 }),
        fc.tuple(fc.nat(), fc.nat(), fc.nat()),
        async (parent, doubled, children, parentPresent, folders, [seed, pick, linePick]) => {
          const own = [...(parentPresent ? parent : []), ...children.flatMap((c) => c.own)];
          const expected = {
            requests: own.length,
            withoutUsage: 0,
            prompt: own.reduce((n, u) => n + u[0], 0),
            read: own.reduce((n, u) => n + u[1], 0),
            write: 0,
            output: own.reduce((n, u) => n + u[2], 0),
            problems: 0,
          };
          const files = codexFiles(parent, doubled, children, parentPresent, folders);
          const order = files.map((_, i) => i).sort((a, b) => ((a * 7919 + seed) % 101) - ((b * 7919 + seed) % 101));
          expect(await totalsOf(files, order)).toEqual(expected);
          const corrupted = corrupt(files, pick, linePick);
          if (corrupted !== null) expect((await totalsOf(corrupted, order)).problems).toBe(1);
        },
      ),
      { numRuns: 40 },
    );
  });
});
