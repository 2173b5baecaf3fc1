/**
 * The corrupted-input fuzzer, one instance per log format. Seeds are the small hand-written
 * fixtures under test/fixtures (written from formats.md); a case corrupts a few records (a JSONL
 * line, or a whole JSON document for opencode and SWE-agent) and checks, against an oracle:
 *
 * - breaking corruptions (truncation, binary bytes, a BOM or a raw control character inside a
 *   line, a type swap of the whole record, tool input nested past any stack): the result equals
 *   the seed with those records removed, plus exactly one ingest issue per corrupted record, at
 *   its line; token totals are those of the untouched records;
 * - usage corruptions (huge, unsafe, negative, fractional, string, array, deeply nested token
 *   counts): exactly one "usage invalid" issue per corrupted record, the same requests, and each
 *   request's usage either unchanged or null (never priced from a guessed number);
 * - harmless changes (a BOM at the start of a file, control characters escaped in a model name):
 *   no issue, same totals, and nothing raw reaches the terminal;
 * - the CLI never exits 70 or throws: `sessions --json` on every case (and `--strict` exits 2),
 *   `report`, `simulate` and `flags` on every `fullEvery`-th case.
 *
 * `npm test` runs a few dozen cases per property; `npm run fuzz` sets FUZZ_RUNS (≥ 10,000).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';
import { discoverSessions, loadSession } from '../../src/ingest/index.js';
import { MAX_TOKENS_PER_REQUEST } from '../../src/ingest/token-count.js';
import type { MeasuredUsage } from '../../src/session/model.js';
import { cli } from '../cli/run.js';

export type FormatSeed = {
  readonly format: string;
  /** Fixture directory copied for each case. */
  readonly fixture: string;
  /** Files (relative, `/`-separated) whose records may be corrupted. */
  readonly target: (file: string) => boolean;
  /** Dotted JSON paths of the token counts the adapter prices from. */
  readonly usagePath: RegExp;
  /** Dotted JSON paths the adapter stringifies (tool inputs); empty = none in this seed. */
  readonly deepPath: RegExp | null;
  /** Records whose usage the format ignores by design (Codex's doubled token_count copy, §2.4). */
  readonly usageIgnored?: (value: unknown, earlier: readonly unknown[]) => boolean;
  /** True when `file` is only read through `other` (an opencode part through its message). */
  readonly readThrough?: (file: string, other: string) => boolean;
};

/** One corruptible record: a JSONL line (1-based) or a whole JSON document (line 0). */
type Unit = { readonly file: string; readonly line: number; readonly value: unknown };

type Tree = Map<string, Buffer>;

const RUNS = Number(process.env['FUZZ_RUNS'] ?? '6');
/** Every case is ingested; every CLI_EVERY-th runs `sessions` three ways, every FULL_EVERY-th also report/simulate/flags. */
const CLI_EVERY = Number(process.env['FUZZ_CLI_EVERY'] ?? '1');
const FULL_EVERY = Number(process.env['FUZZ_FULL_EVERY'] ?? '6');
/** Cases run, per property, for the report of `npm run fuzz`. */
export const casesRun = new Map<string, number>();
const SEED = process.env['FUZZ_SEED'] === undefined ? undefined : Number(process.env['FUZZ_SEED']);

function listFiles(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listFiles(root, path));
    else out.push(relative(root, path).split('\\').join('/'));
  }
  return out;
}

function readTree(root: string): Tree {
  return new Map(listFiles(root).map((file) => [file, readFileSync(join(root, file))]));
}

function isDocument(file: string): boolean {
  return !file.endsWith('.jsonl');
}

function unitsOf(tree: Tree, seed: FormatSeed): Unit[] {
  const units: Unit[] = [];
  for (const [file, bytes] of tree) {
    if (!seed.target(file)) continue;
    const text = bytes.toString('utf8');
    if (isDocument(file)) {
      try {
        units.push({ file, line: 0, value: JSON.parse(text) });
      } catch {
        // A document the fixture already has broken on purpose: not a seed record.
      }
      continue;
    }
    text.split('\n').forEach((line, index) => {
      try {
        const value: unknown = JSON.parse(line);
        if (typeof value === 'object' && value !== null && !Array.isArray(value))
          units.push({ file, line: index + 1, value });
      } catch {
        // A line the fixture already has broken on purpose: not a seed record.
      }
    });
  }
  return units;
}

function paths(value: unknown, prefix: string[] = []): { path: string[]; leaf: unknown }[] {
  const out: { path: string[]; leaf: unknown }[] = [{ path: prefix, leaf: value }];
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) out.push(...paths(child, [...prefix, key]));
  }
  return out;
}

function matching(value: unknown, pattern: RegExp | null, leaf: (v: unknown) => boolean): string[][] {
  if (pattern === null) return [];
  return paths(value)
    .filter((p) => p.path.length > 0 && pattern.test(p.path.join('.')) && leaf(p.leaf))
    .map((p) => p.path);
}

function setPath(value: unknown, path: readonly string[], replacement: unknown): unknown {
  const copy: unknown = structuredClone(value);
  let node = copy as Record<string, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  const last = path[path.length - 1];
  if (last !== undefined) node[last] = replacement;
  return copy;
}

/** A JSON text nesting `depth` arrays around `inner` (built as text: JSON.stringify itself would overflow). */
function deepJson(depth: number, inner = '1'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

const DEEP_MARK = '"__deep__"';

function stringifyWithDeep(value: unknown, depth: number): string {
  return JSON.stringify(value).replace(DEEP_MARK, deepJson(depth));
}

// ---------------------------------------------------------------------------------------------
// Mutations

type Breaking =
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'binary'; readonly bytes: readonly number[] }
  | { readonly kind: 'bom-inside' }
  | { readonly kind: 'raw-control'; readonly code: number }
  | { readonly kind: 'type-swap'; readonly replacement: string }
  | { readonly kind: 'deep-tool-input'; readonly pick: number; readonly depth: number };

const BAD_COUNTS: readonly (number | string | unknown[] | Record<string, unknown>)[] = [
  1e308,
  // An unsafe integer above 2^53 that a double still holds exactly (2^53 + 1 would round to 2^53).
  2 ** 53 + 2,
  2 ** 53,
  -1,
  -123456,
  1.5,
  // Above the bound for one request, and for a SWE-agent run's totals (calls × the bound).
  MAX_TOKENS_PER_REQUEST * 1000 + 1,
  1e15,
  '1000',
  [12],
  { tokens: 12 },
];

type UsageMutation = { readonly pick: number; readonly value: number; readonly deep: number | null };

const breakingArb: fc.Arbitrary<Breaking> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    kind: fc.constant('binary' as const),
    bytes: fc.array(
      fc.integer({ min: 0, max: 255 }).filter((b) => b !== 0x0a),
      { minLength: 1, maxLength: 64 },
    ),
  }),
  fc.record({ kind: fc.constant('bom-inside' as const) }),
  fc.record({
    kind: fc.constant('raw-control' as const),
    code: fc.integer({ min: 0, max: 0x1f }).filter((c) => c !== 0x0a && c !== 0x0d),
  }),
  fc.record({
    kind: fc.constant('type-swap' as const),
    replacement: fc.constantFrom('[]', '42', '"text"', 'null', 'true', '[{"type":"assistant"}]'),
  }),
  fc.record({
    kind: fc.constant('deep-tool-input' as const),
    pick: fc.nat(),
    depth: fc.integer({ min: 1_001, max: 20_000 }),
  }),
);

const usageArb: fc.Arbitrary<UsageMutation> = fc.record({
  pick: fc.nat(),
  value: fc.nat(BAD_COUNTS.length - 1),
  // Below the stringify bound: here nesting is a bad count, not a record too deep to read.
  deep: fc.option(fc.integer({ min: 2, max: 900 }), { nil: null }),
});

/** The corrupted text of a unit, or null when this mutation does not apply to it. */
function breakUnit(unit: Unit, text: string, mutation: Breaking, seed: FormatSeed): string | Buffer | null {
  switch (mutation.kind) {
    case 'truncate': {
      // A document's trailing newline is not content: cutting only it would leave the document whole.
      const body = text.trimEnd();
      if (body.length < 2) return null;
      const at = 1 + Math.floor(mutation.at * (body.length - 2));
      return body.slice(0, at);
    }
    case 'binary':
      // A NUL byte makes sure the bytes are neither blank nor JSON.
      return Buffer.from([0, ...mutation.bytes]);
    case 'bom-inside':
      // At the start of a later line, or inside a document: never where a reader may skip it.
      return unit.line === 1 ? null : unit.line === 0 ? `${text.slice(0, 1)}\uFEFF${text.slice(1)}` : `\uFEFF${text}`;
    case 'raw-control': {
      const at = text.indexOf(':"');
      return at === -1 ? null : `${text.slice(0, at + 2)}${String.fromCharCode(mutation.code)}${text.slice(at + 2)}`;
    }
    case 'type-swap':
      return mutation.replacement;
    case 'deep-tool-input': {
      const targets = matching(unit.value, seed.deepPath, () => true);
      const path = targets[mutation.pick % Math.max(1, targets.length)];
      if (path === undefined) return null;
      return stringifyWithDeep(setPath(unit.value, path, '__deep__'), mutation.depth);
    }
    default:
      return null;
  }
}

function usageUnit(unit: Unit, mutation: UsageMutation, seed: FormatSeed): string | null {
  const targets = matching(unit.value, seed.usagePath, (leaf) => typeof leaf === 'number');
  const path = targets[mutation.pick % Math.max(1, targets.length)];
  if (path === undefined) return null;
  if (mutation.deep !== null) return stringifyWithDeep(setPath(unit.value, path, '__deep__'), mutation.deep);
  return JSON.stringify(setPath(unit.value, path, BAD_COUNTS[mutation.value]));
}

function replaceUnit(tree: Tree, unit: Unit, text: string | Buffer | null): Tree {
  const next = new Map(tree);
  const bytes = text === null ? null : typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  if (unit.line === 0) {
    if (bytes === null) next.delete(unit.file);
    else next.set(unit.file, bytes);
    return next;
  }
  const lines: Buffer[] = [];
  const source = tree.get(unit.file) ?? Buffer.alloc(0);
  let start = 0;
  for (let end = source.indexOf(0x0a); end !== -1; end = source.indexOf(0x0a, start)) {
    lines.push(source.subarray(start, end));
    start = end + 1;
  }
  lines.push(source.subarray(start));
  lines[unit.line - 1] = bytes ?? Buffer.alloc(0);
  const joined: Buffer[] = [];
  lines.forEach((line, index) => {
    if (index > 0) joined.push(Buffer.from([0x0a]));
    joined.push(line);
  });
  next.set(unit.file, Buffer.concat(joined));
  return next;
}

// ---------------------------------------------------------------------------------------------
// Running a tree

type Outcome = {
  readonly issues: string[];
  readonly totals: readonly [number, number, number, number];
  readonly usages: Map<string, (MeasuredUsage | null)[]>;
};

function writeTree(tree: Tree): string {
  const root = mkdtempSync(join(tmpdir(), 'cachecost-fuzz-'));
  for (const [file, bytes] of tree) {
    const path = join(root, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
  }
  return root;
}

async function ingest(root: string): Promise<Outcome> {
  const { sources, issues: found } = await discoverSessions([root]);
  const issues = found.map((issue) => `${relative(root, issue.file)}:${issue.line}`);
  const totals: [number, number, number, number] = [0, 0, 0, 0];
  const usages = new Map<string, (MeasuredUsage | null)[]>();
  for (const source of sources) {
    const session = await loadSession(source, { content: 'sizes' });
    for (const issue of session.issues) issues.push(`${relative(root, issue.file)}:${issue.line}`);
    usages.set(
      `${session.source}:${session.id}`,
      session.requests.map((request) => request.usage),
    );
    for (const request of session.requests) {
      const usage = request.usage;
      if (usage === null) continue;
      for (const count of [usage.promptTokens, usage.outputTokens, usage.cacheReadTokens, usage.cacheWriteTokens]) {
        expect(Number.isSafeInteger(count) && count >= 0 && count <= MAX_TOKENS_PER_REQUEST * 4).toBe(true);
      }
      totals[0] += usage.promptTokens;
      totals[1] += usage.outputTokens;
      totals[2] += usage.cacheReadTokens;
      totals[3] += usage.cacheWriteTokens;
    }
    if (session.totalsOnly !== null) {
      totals[0] += session.totalsOnly.promptTokens;
      totals[1] += session.totalsOnly.outputTokens;
    }
  }
  return { issues: issues.sort(), totals, usages };
}

/** Raw control characters a terminal would act on (our own output has only \n). */
// eslint-disable-next-line no-control-regex -- the raw control characters a guard must have escaped
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let caseNumber = 0;

async function checkCli(root: string, issueCount: number): Promise<void> {
  caseNumber += 1;
  if (caseNumber % CLI_EVERY !== 0) return;
  const sessions = await cli(['sessions', '--json', root]);
  expect(sessions.code, sessions.stderr).toBe(0);
  expect(() => JSON.parse(sessions.stdout) as unknown).not.toThrow();
  const strict = await cli(['sessions', '--strict', root]);
  expect(strict.code, strict.stderr).toBe(issueCount > 0 ? 2 : 0);
  const table = await cli(['sessions', '--verbose', root]);
  expect(table.code).toBe(0);
  expect(RAW_CONTROL.test(table.stdout + table.stderr)).toBe(false);
  if (caseNumber % (CLI_EVERY * FULL_EVERY) !== 0) return;
  for (const command of [['report'], ['simulate', '--target', '50000'], ['flags']]) {
    const result = await cli([...command, '--verbose', root]);
    expect(result.code, `${command.join(' ')}: ${result.stderr}`).not.toBe(70);
    expect([0, 3]).toContain(result.code);
    expect(RAW_CONTROL.test(result.stdout + result.stderr)).toBe(false);
  }
}

function withTree<T>(tree: Tree, use: (root: string) => Promise<T>): Promise<T> {
  const root = writeTree(tree);
  return use(root).finally(() => rmSync(root, { recursive: true, force: true }));
}

/** True when every non-blank line of `file` is one of the seed's records. */
function onlyRecords(tree: Tree, file: string, units: readonly Unit[]): boolean {
  const lines = (tree.get(file)?.toString('utf8') ?? '').split('\n');
  return lines.every(
    (line, index) => line.trim() === '' || units.some((unit) => unit.file === file && unit.line === index + 1),
  );
}

function expectIssues(
  actual: readonly string[],
  oracle: readonly string[],
  corrupted: readonly Unit[],
  seed: FormatSeed,
  tree: Tree,
  units: readonly Unit[] | null,
  stillObjects: readonly Unit[] = [],
): void {
  // A corrupted record only read through another corrupted one is never read: it has no issue.
  const read = corrupted.filter(
    (unit) => !corrupted.some((other) => other !== unit && seed.readThrough?.(unit.file, other.file) === true),
  );
  // A JSONL file with every record corrupted is no longer recognisable as a log: one issue for the file.
  const whole = new Set(
    [...new Set(read.map((unit) => unit.file))].filter(
      // A corrupted line that is still a JSON object (too deep inside) keeps the file recognisable.
      (file) =>
        units !== null &&
        !isDocument(file) &&
        // A Claude Code subagent transcript is read because of where it lies (`<id>/subagents/`), not
        // recognised by its content: its broken lines stay one issue each.
        !file.includes('/subagents/') &&
        !stillObjects.some((unit) => unit.file === file) &&
        units.filter((unit) => unit.file === file).every((unit) => read.includes(unit)) &&
        onlyRecords(tree, file, units),
    ),
  );
  const keys = [
    ...read.filter((unit) => !whole.has(unit.file)).map((unit) => `${unit.file}:${unit.line}`),
    ...[...whole].map((file) => `${file}:0`),
  ];
  const expected = [...oracle, ...keys].sort();
  expect(actual).toEqual(expected);
}

// ---------------------------------------------------------------------------------------------
// The three properties

export function fuzzSeed(seed: FormatSeed): {
  readonly breaking: () => Promise<void>;
  readonly usage: () => Promise<void>;
  readonly harmless: () => Promise<void>;
} {
  const tree = readTree(seed.fixture);
  const units = unitsOf(tree, seed);
  const picks = (arb: fc.Arbitrary<unknown>): fc.Arbitrary<{ unit: number; mutation: unknown }[]> =>
    fc.uniqueArray(fc.record({ unit: fc.nat(units.length - 1), mutation: arb }), {
      minLength: 1,
      maxLength: 3,
      selector: (p) => p.unit,
    });
  const options = { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) };

  // The oracle depends only on which records are removed: computed once per set of records.
  const oracles = new Map<string, Outcome>();
  const oracleFor = async (removed: readonly Unit[], oracle: Tree): Promise<Outcome> => {
    const key = removed
      .map((unit) => `${unit.file}:${unit.line}`)
      .sort()
      .join('|');
    const known = oracles.get(key);
    if (known !== undefined) return known;
    const computed = await withTree(oracle, ingest);
    oracles.set(key, computed);
    return computed;
  };

  const breaking = async (): Promise<void> => {
    await fc.assert(
      fc.asyncProperty(picks(breakingArb), async (chosen) => {
        let corrupted = tree;
        let oracle = tree;
        const hit: Unit[] = [];
        const stillObjects: Unit[] = [];
        for (const { unit: index, mutation } of chosen) {
          const unit = units[index];
          if (unit === undefined) continue;
          if ((mutation as Breaking).kind === 'deep-tool-input') stillObjects.push(unit);
          const source = unit.line === 0 ? (tree.get(unit.file)?.toString('utf8') ?? '') : JSON.stringify(unit.value);
          const text = breakUnit(unit, source, mutation as Breaking, seed);
          if (text === null) continue;
          corrupted = replaceUnit(corrupted, unit, text);
          oracle = replaceUnit(oracle, unit, null);
          hit.push(unit);
        }
        const expected = await oracleFor(hit, oracle);
        await withTree(corrupted, async (root) => {
          const actual = await ingest(root);
          expectIssues(actual.issues, expected.issues, hit, seed, tree, units, stillObjects);
          casesRun.set(`${seed.format} breaking`, (casesRun.get(`${seed.format} breaking`) ?? 0) + 1);
          expect(actual.totals).toEqual(expected.totals);
          await checkCli(root, actual.issues.length);
        });
      }),
      options,
    );
  };

  const usage = async (): Promise<void> => {
    const original = await withTree(tree, ingest);
    const priced = units.filter(
      (unit, index) =>
        matching(unit.value, seed.usagePath, (leaf) => typeof leaf === 'number').length > 0 &&
        seed.usageIgnored?.(
          unit.value,
          units.slice(0, index).map((u) => u.value),
        ) !== true,
    );
    expect(priced.length).toBeGreaterThan(0);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.record({ unit: fc.nat(priced.length - 1), mutation: usageArb }), {
          minLength: 1,
          maxLength: 3,
          selector: (p) => p.unit,
        }),
        async (chosen) => {
          let corrupted = tree;
          const hit: Unit[] = [];
          for (const { unit: index, mutation } of chosen) {
            const unit = priced[index];
            if (unit === undefined) continue;
            const text = usageUnit(unit, mutation, seed);
            if (text === null) continue;
            corrupted = replaceUnit(corrupted, unit, text);
            hit.push(unit);
          }
          await withTree(corrupted, async (root) => {
            const actual = await ingest(root);
            expectIssues(actual.issues, original.issues, hit, seed, tree, null);
            casesRun.set(`${seed.format} usage`, (casesRun.get(`${seed.format} usage`) ?? 0) + 1);
            expect([...actual.usages.keys()]).toEqual([...original.usages.keys()]);
            for (const [id, list] of actual.usages) {
              const before = original.usages.get(id) ?? [];
              expect(list.length).toBe(before.length);
              list.forEach((usage, i) => {
                if (usage !== null) expect(usage).toEqual(before[i]);
              });
            }
            await checkCli(root, actual.issues.length);
          });
        },
      ),
      options,
    );
  };

  const harmless = async (): Promise<void> => {
    const original = await withTree(tree, ingest);
    const files = [...tree.keys()].filter(seed.target);
    await fc.assert(
      fc.asyncProperty(
        fc.nat(files.length - 1),
        fc.boolean(),
        fc.array(
          fc.integer({ min: 0, max: 0x9f }).filter((c) => c < 0x20 || c >= 0x7f),
          { minLength: 1, maxLength: 6 },
        ),
        async (fileIndex, bom, controls) => {
          const file = files[fileIndex] ?? '';
          let text = tree.get(file)?.toString('utf8') ?? '';
          if (bom) text = `\uFEFF${text}`;
          // Control characters escaped (by JSON) in every model name of the file.
          const noise = String.fromCharCode(...controls);
          text = text.replace(
            /("model(?:ID)?":")([^"\\]*)"/g,
            (_m, head: string, name: string) => `${head}${name}${JSON.stringify(noise).slice(1, -1)}"`,
          );
          const changed = new Map(tree).set(file, Buffer.from(text, 'utf8'));
          await withTree(changed, async (root) => {
            const actual = await ingest(root);
            expect(actual.issues).toEqual(original.issues);
            casesRun.set(`${seed.format} harmless`, (casesRun.get(`${seed.format} harmless`) ?? 0) + 1);
            expect(actual.totals).toEqual(original.totals);
            await checkCli(root, actual.issues.length);
          });
        },
      ),
      options,
    );
  };

  return { breaking, usage, harmless };
}
