/**
 * Parsing ahead on worker threads (`parse-ahead.ts`, `parse-jobs.ts`, `entry-codec.ts`): a run
 * whose transcripts are parsed by workers reads the same sessions, requests and issues, in the same
 * order, as a run in one thread — on the fixtures, on the real logs, on generated transcripts, when
 * a worker dies mid-file, and when a file cannot be read; the parse cache gets the same entries;
 * warm and small runs start no worker.
 *
 * Checked against deliberate bugs (each failed here): the entries of each pair of planned files
 * swapped (`byFile` pointing at the next job), the entries a dying worker had already handed over
 * read again (no skip), and the codec writing a user record's `isMeta` in place of `isCompactSummary`.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type EncodedEntries,
  EntryWriter,
  readEntriesOf,
  storedEntryCodec,
} from '../../../src/ingest/claude-code/entry-codec.js';
import type { LineEntry } from '../../../src/ingest/claude-code/line-entry.js';
import { ParseAhead, type ParallelParse } from '../../../src/ingest/claude-code/parse-ahead.js';
import { readEntries } from '../../../src/ingest/claude-code/read-entries.js';
import type { ContentMode } from '../../../src/ingest/content-mode.js';
import {
  discoverSessions,
  openParseCache,
  openRunPack,
  AUTOMATIC_MIN_BYTES,
  EARLY_MIN_BYTES,
  AUTOMATIC_MIN_IDLE_CORES,
  parallelParse,
  type ParseCache,
  startParseAhead,
} from '../../../src/ingest/index.js';
import { forEachSession, parallelFromEnv } from '../../../src/usecases/for-each-session.js';
import { DYING_PARSE_WORKER, SOURCE_PARSE_WORKER } from '../support/parse-worker-script.js';

const REAL_LOGS = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'real-logs', 'claude-code');
const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'claude-code');
const root = mkdtempSync(join(tmpdir(), 'cachecost-parse-ahead-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const IN_PROCESS: ParallelParse = { workers: 0, minBytes: 0 };
const WORKERS: ParallelParse = { workers: 2, minBytes: 0, workerScript: SOURCE_PARSE_WORKER };

/** Everything a run yields, as JSON: each session (in order) and the run's issues. */
async function runJson(
  paths: readonly string[],
  content: ContentMode,
  parallel: ParallelParse,
  cache: ParseCache | null = null,
): Promise<string> {
  const sessions: string[] = [];
  const issues = await forEachSession(paths, { content, cache, parallel }, (session) => {
    sessions.push(JSON.stringify(session));
  });
  return JSON.stringify({ sessions, issues });
}

function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...jsonlFiles(path));
    else if (entry.name.endsWith('.jsonl')) out.push(path);
  }
  return out.sort();
}

function roundTrip(entries: readonly LineEntry[]): LineEntry[] {
  const writer = new EntryWriter();
  for (const entry of entries) writer.write(entry);
  const batch: EncodedEntries = writer.take();
  const out: LineEntry[] = [];
  readEntriesOf(batch, (entry) => out.push(entry));
  return out;
}

/** The stored layout spelled out from `take()`: a head of four counts, the numbers, the strings, the other entries' JSON. */
function storedLayout(entries: readonly LineEntry[]): Buffer {
  const writer = new EntryWriter();
  for (const entry of entries) writer.write(entry);
  const batch = writer.take();
  const others = Buffer.from(JSON.stringify(batch.others));
  const head = Buffer.alloc(16);
  head.writeUInt32LE(batch.numbers.length, 0);
  head.writeUInt32LE(batch.strings.byteLength, 4);
  head.writeUInt32LE(others.length, 8);
  head.writeUInt32LE(batch.wide ? 1 : 0, 12);
  const numbers = Buffer.from(batch.numbers.buffer, batch.numbers.byteOffset, batch.numbers.byteLength);
  return Buffer.concat([head, numbers, Buffer.from(batch.strings), others]);
}

/** The entries as the parse cache stores and reads them back (`storedEntryCodec`), in batches of up to 7. */
function storedRoundTrip(entries: readonly LineEntry[]): LineEntry[] {
  const out: LineEntry[] = [];
  for (let from = 0; from < entries.length; from += 7) {
    const bytes = storedEntryCodec.encode(entries.slice(from, from + 7));
    expect(Buffer.from(bytes).equals(storedLayout(entries.slice(from, from + 7)))).toBe(true);
    // At an odd offset in a larger buffer, as in a file read whole: the numbers are not 8-aligned there.
    const shifted = Buffer.concat([Buffer.from([0]), bytes]).subarray(1);
    storedEntryCodec.decode(shifted, (entry) => out.push(entry));
  }
  return out;
}

// --- generated transcripts (formats.md §1.2–§1.8) ---

const genText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('é', '日本', '\ud83d\ude00', '\ud800', '\u0000', 'a"b\\c'),
);

type GenLine =
  | {
      readonly kind: 'assistant';
      readonly message: number;
      readonly output: number;
      readonly tool: string | null;
      readonly searches: number;
    }
  | { readonly kind: 'user'; readonly text: string; readonly result: string | null; readonly meta: boolean }
  | { readonly kind: 'boundary' }
  | { readonly kind: 'title'; readonly text: string }
  | { readonly kind: 'unknown' }
  | { readonly kind: 'broken' }
  | { readonly kind: 'blank' };

const genLine: fc.Arbitrary<GenLine> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('assistant' as const),
      message: fc.nat({ max: 6 }),
      output: fc.nat({ max: 900 }),
      tool: fc.option(genText, { nil: null }),
      searches: fc.oneof(fc.constant(0), fc.nat({ max: 3 })),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('user' as const),
      text: genText,
      result: fc.option(genText, { nil: null }),
      meta: fc.boolean(),
    }),
    weight: 3,
  },
  fc.constant({ kind: 'boundary' as const }),
  fc.record({ kind: fc.constant('title' as const), text: genText }),
  fc.constant({ kind: 'unknown' as const }),
  fc.constant({ kind: 'broken' as const }),
  fc.constant({ kind: 'blank' as const }),
);

function lineText(line: GenLine, session: string, file: number, n: number): string {
  const envelope = {
    uuid: `${session}-f${file}-u${n}`,
    parentUuid: n === 0 ? null : `${session}-f${file}-u${n - 1}`,
    sessionId: session,
    cwd: '/home/me/projet-é',
    timestamp: `2026-01-01T00:${String(n % 60).padStart(2, '0')}:00.000Z`,
  };
  switch (line.kind) {
    case 'assistant':
      return JSON.stringify({
        type: 'assistant',
        ...envelope,
        requestId: `req_${session}_${line.message}`,
        message: {
          id: `msg_${session}_${line.message}`,
          model: 'claude-sonnet-4-6',
          content:
            line.tool === null
              ? [{ type: 'text', text: 'ok' }]
              : [{ type: 'tool_use', id: `toolu_${n}`, name: line.tool, input: { q: line.tool } }],
          usage: {
            input_tokens: 3,
            cache_read_input_tokens: n,
            cache_creation_input_tokens: 7,
            output_tokens: line.output,
            // Web searches (2.1.x): a note per response that ran any, carried by every path.
            ...(line.searches > 0
              ? { server_tool_use: { web_search_requests: line.searches, web_fetch_requests: 0 } }
              : {}),
          },
        },
      });
    case 'user':
      return JSON.stringify({
        type: 'user',
        ...envelope,
        isMeta: line.meta,
        message: {
          role: 'user',
          content:
            line.result === null
              ? line.text
              : [{ type: 'tool_result', tool_use_id: `toolu_${n - 1}`, content: line.result, is_error: line.meta }],
        },
      });
    case 'boundary':
      return JSON.stringify({
        type: 'system',
        subtype: 'compact_boundary',
        ...envelope,
        compactMetadata: { trigger: 'auto', preTokens: 1000 },
      });
    case 'title':
      return JSON.stringify({ type: 'summary', summary: line.text, leafUuid: envelope.uuid });
    case 'unknown':
      return JSON.stringify({ type: 'x-new', ...envelope });
    case 'broken':
      return '{"type":"assistant", "message":';
    case 'blank':
      return '';
  }
}

type GenSession = { readonly main: readonly GenLine[][]; readonly agents: readonly GenLine[][] };

const genSessions: fc.Arbitrary<GenSession[]> = fc.array(
  fc.record({
    main: fc.array(fc.array(genLine, { maxLength: 12 }), { minLength: 1, maxLength: 2 }),
    agents: fc.array(fc.array(genLine, { maxLength: 8 }), { maxLength: 2 }),
  }),
  { minLength: 1, maxLength: 4 },
);

let written = 0;

/** Writes the sessions as a Claude Code projects tree; returns its root. */
function writeSessions(sessions: readonly GenSession[]): string {
  written += 1;
  const dir = join(root, `gen-${written}`, 'projects', '-home-me-app');
  mkdirSync(dir, { recursive: true });
  sessions.forEach((session, s) => {
    const id = `0000000${s}-aaaa-bbbb-cccc-dddddddddddd`;
    session.main.forEach((lines, f) => {
      // A second main transcript of the same session (a resumed copy) sits in another project folder.
      const folder = f === 0 ? dir : join(dir, '..', `-home-me-app-${f}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `${id}.jsonl`), lines.map((line, n) => `${lineText(line, id, f, n)}\n`).join(''));
    });
    session.agents.forEach((lines, a) => {
      const agents = join(dir, id, 'subagents');
      mkdirSync(agents, { recursive: true });
      const text = lines.map((line, n) => `${lineText(line, id, 10 + a, n)}\n`).join('');
      writeFileSync(join(agents, `agent-a${a}.jsonl`), text);
    });
  });
  return join(dir, '..', '..');
}

describe('entry codec', () => {
  it('gives back every entry of the real logs, field for field and in key order', async () => {
    for (const content of ['usage', 'sizes'] as const) {
      for (const file of jsonlFiles(REAL_LOGS)) {
        const entries: LineEntry[] = [];
        await readEntries(file, content, null, (entry) => entries.push(entry));
        expect(JSON.stringify(roundTrip(entries))).toBe(JSON.stringify(entries));
      }
    }
    for (const content of ['usage', 'sizes', 'text'] as const) {
      for (const file of jsonlFiles(REAL_LOGS)) {
        const entries: LineEntry[] = [];
        await readEntries(file, content, null, (entry) => entries.push(entry));
        expect(JSON.stringify(storedRoundTrip(entries)), `${content} ${file}`).toBe(JSON.stringify(entries));
      }
    }
  });

  it('gives back every entry of generated lines (strings beyond Latin-1, lone surrogates, every record kind)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(genLine, { maxLength: 30 }), async (lines) => {
        const file = join(root, `codec-${(written += 1)}.jsonl`);
        writeFileSync(file, lines.map((line, n) => `${lineText(line, 'S', 0, n)}\n`).join(''));
        const entries: LineEntry[] = [];
        await readEntries(file, 'usage', null, (entry) => entries.push(entry));
        const back = roundTrip(entries);
        expect(back).toStrictEqual(entries);
        expect(JSON.stringify(back)).toBe(JSON.stringify(entries));
        const stored = storedRoundTrip(entries);
        expect(stored).toStrictEqual(entries);
        expect(JSON.stringify(stored)).toBe(JSON.stringify(entries));
      }),
      { numRuns: 60 },
    );
  });
});

describe('the stored codec', () => {
  it('starts every batch afresh, even after a batch that failed halfway', async () => {
    const entries: LineEntry[] = [];
    await readEntries(jsonlFiles(FIXTURES)[0] ?? '', 'usage', null, (entry) => entries.push(entry));
    const assistant = entries.find((entry) => entry.record?.kind === 'assistant');
    if (assistant === undefined) throw new Error('the fixture has no assistant line');
    // An entry the writer fails on after writing part of it (no tool call list).
    const broken = { ...assistant, record: { ...assistant.record, toolCalls: undefined } } as unknown as LineEntry;
    expect(() => storedEntryCodec.encode([...entries, broken])).toThrow();
    expect(Buffer.from(storedEntryCodec.encode(entries)).equals(storedLayout(entries))).toBe(true);
  });
});

describe('parsing ahead on worker threads', () => {
  it('reads the fixtures and the real logs as one thread does', async () => {
    for (const paths of [[FIXTURES], [REAL_LOGS]]) {
      for (const content of ['usage', 'sizes'] as const) {
        expect(await runJson(paths, content, WORKERS)).toBe(await runJson(paths, content, IN_PROCESS));
      }
    }
  });

  it('reads generated transcripts as one thread does', async () => {
    await fc.assert(
      fc.asyncProperty(
        genSessions,
        fc.constantFrom(1, 2, 3),
        fc.constantFrom(0, 0.4, 0.9),
        async (sessions, workers, mainShare) => {
          const dir = writeSessions(sessions);
          const parallel = { ...WORKERS, workers, mainShare };
          expect(await runJson([dir], 'usage', parallel)).toBe(await runJson([dir], 'usage', IN_PROCESS));
        },
      ),
      { numRuns: 12 },
    );
  });

  it('loses nothing when a worker dies mid-file: the rest is read in the main thread', async () => {
    const big: GenLine[] = Array.from({ length: 2_500 }, (_, n) =>
      n % 2 === 0
        ? { kind: 'assistant', message: n % 7, output: n, tool: null, searches: n % 5 === 0 ? 1 : 0 }
        : { kind: 'user', text: `q${n}`, result: null, meta: false },
    );
    const dir = writeSessions([
      { main: [big], agents: [big.slice(0, 1_500)] },
      { main: [big.slice(0, 40)], agents: [] },
    ]);
    const dying = { workers: 1, minBytes: 0, workerScript: DYING_PARSE_WORKER };
    expect(await runJson([dir], 'usage', dying)).toBe(await runJson([dir], 'usage', IN_PROCESS));
  });

  it('reports a file that cannot be read with the same reason as one thread', async () => {
    const missing = join(root, 'gone.jsonl');
    const ahead = ParseAhead.start([{ file: missing, bytes: 0 }], 'usage', null, WORKERS);
    expect(ahead).not.toBeNull();
    const inProcess = await readEntries(missing, 'usage', null, () => undefined).then(
      () => null,
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(inProcess).toMatch(/ENOENT/);
    await expect(ahead?.read(missing, () => undefined)).rejects.toThrow(inProcess ?? '');
    await ahead?.close();
  });

  it('writes the same parse cache entries, and a warm run starts no worker', async () => {
    const dir = writeSessions([
      {
        main: [[{ kind: 'assistant', message: 1, output: 5, tool: 'Bash', searches: 2 }]],
        agents: [[{ kind: 'blank' }]],
      },
      { main: [[{ kind: 'user', text: 'hé', result: null, meta: false }]], agents: [] },
    ]);
    const nowMs = Date.now() + 60_000;
    const caches: string[] = [];
    const outputs: string[] = [];
    for (const parallel of [WORKERS, IN_PROCESS]) {
      const cacheDir = join(root, `cache-${(written += 1)}`);
      const cache = await openParseCache(cacheDir, { mustExist: null, nowMs });
      expect(cache).not.toBeNull();
      outputs.push(await runJson([dir], 'usage', parallel, cache));
      const entries = readdirSync(join(cacheDir, 'parsed-v1')).filter((name) => name.endsWith('.entries'));
      caches.push(
        JSON.stringify(entries.sort().map((name) => readFileSync(join(cacheDir, 'parsed-v1', name), 'base64'))),
      );
      // The next run is served by the pack (and the entries): nothing to parse ahead.
      const pack = openRunPack(cache, 'usage', [dir]);
      const { sources } = await discoverSessions([dir], pack);
      expect(startParseAhead(sources, { content: 'usage', cache, pack, parallel: WORKERS })).toBeNull();
    }
    expect(caches[0]).toBe(caches[1]);
    expect(outputs[0]).toBe(outputs[1]);
  });

  it('starts no worker for a small run unless told to', async () => {
    const { sources } = await discoverSessions([REAL_LOGS]);
    const small = { workers: 2, minBytes: 64 << 20, workerScript: SOURCE_PARSE_WORKER };
    expect(startParseAhead(sources, { content: 'usage', parallel: small })).toBeNull();
    expect(startParseAhead(sources, { content: 'text', parallel: WORKERS })).toBeNull();
    expect(startParseAhead(sources, { content: 'usage', parallel: IN_PROCESS })).toBeNull();
    const started = startParseAhead(sources, { content: 'usage', parallel: WORKERS });
    expect(started).not.toBeNull();
    await started?.close();
  });
});

describe('how many threads', () => {
  it('builds sessions on one worker from a size by default, unless CACHECOST_THREADS says otherwise', () => {
    // Started during discovery once half the size is found (`earlyParallel`), kept from the size.
    const automatic = {
      workers: 1,
      minBytes: AUTOMATIC_MIN_BYTES,
      mainShare: 1,
      sessions: true,
      earlyFromBytes: EARLY_MIN_BYTES,
    };
    expect(parallelParse(2)).toEqual(automatic);
    // One worker wherever the cores allow it: more were not measured to gain (README, performance).
    expect(parallelParse(64)).toEqual(automatic);
    expect(parallelParse(1)).toMatchObject({ workers: 0 });
    expect(parallelParse(8, 4)).toEqual({ workers: 3, minBytes: 0, mainShare: 0 });
    expect(parallelParse(2, 2)).toEqual({ workers: 1, minBytes: 0, mainShare: 0.4 });
    expect(parallelFromEnv({})).toBeUndefined();
    expect(parallelFromEnv({ CACHECOST_THREADS: ' 1 ' })).toMatchObject({ workers: 0 });
    expect(parallelFromEnv({ CACHECOST_THREADS: '3' })).toMatchObject({ workers: 2, minBytes: 0 });
    for (const bad of ['0', '-1', '1.5', 'two', '1e3'])
      expect(() => parallelFromEnv({ CACHECOST_THREADS: bad })).toThrow(/CACHECOST_THREADS must be a whole number/);
  });

  it('starts the automatic worker only where the busy cores leave one idle enough; CACHECOST_THREADS whatever the load', () => {
    // On 2 cores: a worker up to 1.5 cores busy (the run's main thread included), none beyond (README, performance).
    expect(parallelParse(2, undefined, 1.3)).toMatchObject({ workers: 1 });
    expect(parallelParse(2, undefined, 1.5)).toMatchObject({ workers: 1 });
    expect(parallelParse(2, undefined, 1.6)).toMatchObject({ workers: 0, minBytes: AUTOMATIC_MIN_BYTES });
    expect(parallelParse(2, undefined, Number.NaN)).toMatchObject({ workers: 1 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 256 }),
        fc.double({ min: 0, max: 512, noNaN: true }),
        fc.option(fc.integer({ min: 1, max: 16 }), { nil: undefined }),
        (cores, busy, threads) => {
          const plan = parallelParse(cores, threads, busy);
          if (threads !== undefined) expect(plan).toEqual(parallelParse(cores, threads));
          else expect(plan.workers).toBe(cores >= 2 && cores - busy >= AUTOMATIC_MIN_IDLE_CORES ? 1 : 0);
        },
      ),
    );
  });
});
