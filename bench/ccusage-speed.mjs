#!/usr/bin/env node
// Speed and memory of cachecost against ccusage@20.0.24, side by side, as RATIOS within one run
// (absolute times depend on the machine and its load; ratios of medians of alternating runs much
// less). Needs the network once to install ccusage (into bench/out/, never a project dependency).
//
//   node bench/ccusage-speed.mjs [--runs 5] [--corpora 12,48] [--big-mb 1024] [--skip-big]
//                                [--skip-cold] [--baseline <another build's dist/cli/main.js>]
//
// 1. Builds the unique-id corpora (bench/corpus.mjs) under bench/out/: 12 and 48 rewritten copies
//    of ../shared/real-logs/claude-code (≈ 65 MB and ≈ 259 MB), and one ≈ 1 GB single transcript.
// 2. On each corpus, alternating run by run: `ccusage session --json --offline`, cold
//    `cachecost report --by session --json --no-cache`, cold `cachecost sessions --json --no-cache`,
//    the Node floor (`bench/node-floor.mjs`: the least a Node program does for the same token sums,
//    a reference for what the runtime allows here, its totals checked against ccusage's) on one
//    thread and on two,
//    a user's first run (`report` with the cache on and empty: it writes the cache), and with a
//    primed cache: a warm re-run, and a re-run after one transcript grew. The corpus's files are
//    dated a month back first, as a user's history mostly is (the cache stores line by line only
//    what was written to within the last day: the first growth of the grown transcript reads it
//    whole, later ones only the appended bytes).
//    Each command's wall time and peak RSS (`/usr/bin/time -f %M`) are recorded.
//    `--baseline`: another build's warm and grown runs alternate too (its own cache), so a change
//    is measured before / after in one run; `--skip-cold` leaves the cold runs out.
// 3. Prints the median of each (wall and CPU time, user + system: the steadier figure on a loaded
//    machine), the ratios of medians against ccusage's, peak RSS, and checks that the cached and
//    uncached JSON outputs are byte-identical and that token totals match ccusage's.
// 4. On the 1 GB file: peak RSS of `report`, `sessions` and `simulate --scenario freecode`.
import { execFile } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { ageFiles, buildCopies, buildSingleFile, rewriteIds } from './corpus.mjs';
import { measure, median } from './measure.mjs';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..');
const out = join(repo, 'bench', 'out');
const source = resolve(repo, '..', 'shared', 'real-logs', 'claude-code');
const VERSION = '20.0.24';
const cachecostMain = join(repo, 'dist', 'cli', 'main.js');
const nodeFloor = join(repo, 'bench', 'node-floor.mjs');

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    corpora: { type: 'string', default: '12,48' },
    'big-mb': { type: 'string', default: '1024' },
    'skip-big': { type: 'boolean', default: false },
    'skip-cold': { type: 'boolean', default: false },
    baseline: { type: 'string' },
  },
});
const runs = Number(values.runs);
const corpora = values.corpora.split(',').filter(Boolean).map(Number);
const bigMb = Number(values['big-mb']);
const skipBig = values['skip-big'];
const skipCold = values['skip-cold'];
const baselineMain = values.baseline === undefined ? null : resolve(values.baseline);
if (baselineMain !== null && !existsSync(baselineMain)) {
  console.error(`--baseline: no such file: ${baselineMain}`);
  process.exit(1);
}

if (!existsSync(cachecostMain)) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}
mkdirSync(out, { recursive: true });

async function installCcusage() {
  const prefix = join(out, `ccusage-${VERSION}`);
  const bin = join(prefix, 'node_modules', 'ccusage', 'dist', 'index.js');
  if (!existsSync(bin)) {
    await run(
      'npm',
      ['install', '--prefix', prefix, `ccusage@${VERSION}`, '--no-audit', '--no-fund', '--loglevel=error'],
      { timeout: 300_000 },
    );
  }
  const pkg = JSON.parse(readFileSync(join(prefix, 'node_modules', 'ccusage', 'package.json'), 'utf8'));
  const entry = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0];
  return join(prefix, 'node_modules', 'ccusage', entry);
}

const fmtMs = (ms) => `${(ms / 1000).toFixed(2)} s`;
const fmtMb = (mb) => `${mb.toFixed(0)} MB`;

function tokenTotals(ccusageJson, cachecostJson) {
  const parsed = JSON.parse(ccusageJson);
  // `ccusage session` (every agent) answers `session`; `ccusage claude session` answers `sessions`.
  const theirs = (parsed.session ?? parsed.sessions).reduce(
    (acc, s) => [
      acc[0] + s.inputTokens,
      acc[1] + s.cacheReadTokens,
      acc[2] + s.cacheCreationTokens,
      acc[3] + s.outputTokens,
    ],
    [0, 0, 0, 0],
  );
  const t = JSON.parse(cachecostJson).total;
  const ours = [
    t.uncachedInputTokens,
    t.cacheReadTokens,
    t.cacheWrite5mTokens + t.cacheWrite1hTokens + t.cacheWriteUnknownTtlTokens,
    t.outputTokens,
  ];
  return { theirs, ours };
}

function largestTranscript(dir) {
  let best = null;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (
        e.name.endsWith('.jsonl') &&
        !e.name.startsWith('agent-') &&
        (best === null || statSync(p).size > statSync(best).size)
      )
        best = p;
    }
  };
  walk(dir);
  return best;
}

const ccusage = await installCcusage();
const emptyHome = join(out, 'empty-home');
mkdirSync(emptyHome, { recursive: true });
console.log(`machine: Node ${process.version}; ccusage ${VERSION}; ${runs} alternating runs per command; medians`);

const table = [];
for (const copies of corpora) {
  const corpus = await buildCopies({ source, outDir: join(out, `claude-code-x${copies}`), copies });
  // A month old, as a user's logs mostly are; the grown transcript is then written to (now).
  ageFiles(corpus.dir, 30);
  const mb = corpus.bytes / 1e6;
  const cacheDir = join(out, `cache-x${copies}`);
  rmSync(cacheDir, { recursive: true, force: true });
  const baselineCacheDir = join(out, `cache-baseline-x${copies}`);
  rmSync(baselineCacheDir, { recursive: true, force: true });
  const baseEnv = { CACHECOST_CACHE_DIR: baselineCacheDir, NO_COLOR: '1' };
  const ccEnv = { HOME: emptyHome, CLAUDE_CONFIG_DIR: corpus.dir, NO_COLOR: '1' };
  const ourEnv = { CACHECOST_CACHE_DIR: cacheDir, NO_COLOR: '1' };
  const report = ['report', corpus.dir, '--by', 'session', '--json'];
  const sessions = ['sessions', corpus.dir, '--json'];
  // A grown file: a copy of its own last assistant line with fresh ids, appended before each run.
  const grown = largestTranscript(corpus.dir);
  const grownLines = readFileSync(grown, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"assistant"') && line.includes('"usage"'));
  const original = readFileSync(grown);
  const samples = {
    ccusage: [],
    floor: [],
    floor2: [],
    report: [],
    sessions: [],
    first: [],
    warm: [],
    grown: [],
    baseWarm: [],
    baseGrown: [],
  };
  // A user's first run: the cache on and empty (every transcript's line entries and the pack written).
  const firstCacheDir = join(out, `cache-first-x${copies}`);
  const firstEnv = { CACHECOST_CACHE_DIR: firstCacheDir, NO_COLOR: '1' };
  let firstDiffers = false;
  let outputs = {};
  try {
    // Prime the cache once (not timed), then alternate.
    await measure(cachecostMain, report, ourEnv);
    if (baselineMain !== null) await measure(baselineMain, report, baseEnv);
    for (let i = 0; i < runs; i += 1) {
      const c = await measure(ccusage, ['session', '--json', '--offline'], ccEnv);
      samples.ccusage.push(c);
      // What Node itself can do on the same sum (bench/node-floor.mjs), beside the cold runs.
      const floor = skipCold ? null : await measure(nodeFloor, [corpus.dir]);
      if (floor !== null) samples.floor.push(floor);
      const floor2 = skipCold ? null : await measure(nodeFloor, ['--threads', '2', corpus.dir]);
      if (floor2 !== null) samples.floor2.push(floor2);
      // With --skip-cold, one uncached run in the last round still gives the outputs to compare
      // (the logs as ccusage and the warm run read them: the grown file grows every round).
      const timed = !skipCold;
      const r = timed || i === runs - 1 ? await measure(cachecostMain, [...report, '--no-cache'], ourEnv) : null;
      if (timed && r !== null) {
        samples.report.push(r);
        samples.sessions.push(await measure(cachecostMain, [...sessions, '--no-cache'], ourEnv));
        rmSync(firstCacheDir, { recursive: true, force: true });
        const f = await measure(cachecostMain, report, firstEnv);
        samples.first.push(f);
        if (f.stdout !== r.stdout) firstDiffers = true;
      }
      // With a baseline, the two builds take turns running first (the one right after ccusage
      // runs on a quieter machine).
      const baseFirst = baselineMain !== null && i % 2 === 1;
      if (baseFirst) samples.baseWarm.push(await measure(baselineMain, report, baseEnv));
      const w = await measure(cachecostMain, report, ourEnv);
      samples.warm.push(w);
      if (baselineMain !== null && !baseFirst) samples.baseWarm.push(await measure(baselineMain, report, baseEnv));
      appendFileSync(grown, `${rewriteIds(grownLines[i % grownLines.length], 1000 + i)}\n`);
      // The line was written a moment before, not within the cache's racy-mtime window (100 ms
      // after a write, a file's stamp is not trusted and what a run reads of it is not stored):
      // otherwise the build that runs first after the append cannot store the grown file, and its
      // next "warm" run re-reads it (30-70 ms), while the other build, running later, can. The
      // stamp is set 1-2 s back, off a whole second (a whole-second mtime widens the window to 2 s).
      const stamp = Math.floor(Date.now() / 1000) - 1 + 0.5;
      utimesSync(grown, stamp, stamp);
      if (baseFirst) samples.baseGrown.push(await measure(baselineMain, report, baseEnv));
      const g = await measure(cachecostMain, report, ourEnv);
      samples.grown.push(g);
      if (baselineMain !== null && !baseFirst) samples.baseGrown.push(await measure(baselineMain, report, baseEnv));
      outputs = {
        ccusage: c.stdout,
        floor: floor?.stdout,
        floor2: floor2?.stdout,
        cold: r?.stdout ?? '',
        warm: w.stdout,
        grown: g.stdout,
      };
    }
    const noCacheGrown = await measure(cachecostMain, [...report, '--no-cache'], ourEnv);
    outputs.grownCold = noCacheGrown.stdout;
  } finally {
    writeFileSync(grown, original);
  }
  const base = median(samples.ccusage.map((s) => s.ms));
  const baseCpu = median(samples.ccusage.map((s) => s.cpuMs));
  const row = (label, list) => {
    if (list.length === 0) return;
    const ms = median(list.map((s) => s.ms));
    const cpuMs = median(list.map((s) => s.cpuMs));
    const rss = Math.max(...list.map((s) => s.rssMb));
    table.push({
      corpus: `${copies} copies (${mb.toFixed(0)} MB)`,
      command: label,
      median: fmtMs(ms),
      ratio: `${(ms / base).toFixed(2)}×`,
      cpu: fmtMs(cpuMs),
      cpuRatio: `${(cpuMs / baseCpu).toFixed(2)}×`,
      peakRss: fmtMb(rss),
    });
  };
  row('ccusage session --json --offline', samples.ccusage);
  row('Node floor: bench/node-floor.mjs (usage lines only, nothing checked)', samples.floor);
  row('Node floor, two threads (--threads 2)', samples.floor2);
  row('report --by session --json (cold, --no-cache)', samples.report);
  row('sessions --json (cold, --no-cache)', samples.sessions);
  row('report, first run (cache on, empty)', samples.first);
  row('report, warm cache, logs unchanged', samples.warm);
  row('report, warm cache, one file grew', samples.grown);
  row('baseline: report, warm cache, logs unchanged', samples.baseWarm);
  row('baseline: report, warm cache, one file grew', samples.baseGrown);
  const totals = tokenTotals(outputs.ccusage, outputs.cold);
  console.log(
    `${copies} copies: token totals in/read/write/out cachecost ${totals.ours.join('/')} · ccusage ${totals.theirs.join('/')}`,
  );
  if (outputs.floor !== undefined) {
    const floorTotals = tokenTotals(outputs.ccusage, outputs.floor);
    const same = floorTotals.ours.join('/') === floorTotals.theirs.join('/') && outputs.floor2 === outputs.floor;
    console.log(
      `${copies} copies: the Node floor's token totals ${same ? 'equal' : 'DIFFER FROM'} ccusage's (two threads: ${outputs.floor2 === outputs.floor ? 'the same output' : 'ANOTHER OUTPUT'})`,
    );
    if (!same) process.exitCode = 1;
  }
  console.log(
    `${copies} copies: warm output ${outputs.warm === outputs.cold ? 'byte-identical to' : 'DIFFERS FROM'} cold; grown output ${outputs.grown === outputs.grownCold ? 'byte-identical to' : 'DIFFERS FROM'} a --no-cache run`,
  );
  if (firstDiffers) console.log(`${copies} copies: a first run's output DIFFERS FROM the --no-cache run's`);
  if (outputs.warm !== outputs.cold || outputs.grown !== outputs.grownCold || firstDiffers) process.exitCode = 1;
}
console.table(table);

if (!skipBig) {
  const big = await buildSingleFile({
    source,
    outFile: join(out, 'claude-code-1gb', 'projects', '-bench-big', '0badf00d-0000-4000-8000-000000000001.jsonl'),
    bytes: bigMb * 1e6,
  });
  const dir = join(out, 'claude-code-1gb');
  console.log(`single file: ${(big.bytes / 1e6).toFixed(0)} MB`);
  const env = { CACHECOST_CACHE_DIR: join(out, 'cache-1gb'), NO_COLOR: '1' };
  const rows = [];
  for (const [label, argv] of [
    ['report --by session --json', ['report', dir, '--by', 'session', '--json', '--no-cache']],
    ['sessions --json', ['sessions', dir, '--json', '--no-cache']],
    ['simulate --scenario freecode --json', ['simulate', dir, '--scenario', 'freecode', '--json']],
  ]) {
    const m = await measure(cachecostMain, argv, env);
    rows.push({ command: label, wall: fmtMs(m.ms), peakRss: fmtMb(m.rssMb) });
  }
  console.table(rows);
}
