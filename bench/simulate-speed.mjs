#!/usr/bin/env node
// `npm run bench:simulate`: what a replay costs on top of reading the bill, as RATIOS within one
// run (absolute times depend on the machine and its load; ratios of medians of alternating runs
// much less). No timed unit tests: this is the only place simulate's speed is measured.
//
//   node bench/simulate-speed.mjs [--runs 5] [--mb 100] [--big] [--big-mb 1024] [--baseline <main.js>]
//                                 [--threads 1,2]
//
// 1. Generates the FreeCode benchmark corpus once (the dataset generator's `generateCorpus`,
//    deterministic for its seed) under bench/out/freecode-<mb>mb/; reused while it is complete.
// 2. Alternating run by run: `cachecost report <corpus> --json --no-cache` and
//    `cachecost simulate <corpus> --scenario freecode --json`, each a fresh process; wall time, CPU
//    time (user + system) and peak RSS (`/usr/bin/time`) of each run.
// 3. Prints the medians and the ratio simulate / report (goal: ≤ 1.5× wall), and checks that every
//    simulate run printed the same bytes (the replay is deterministic).
//    With --baseline: also another build's simulate and report (e.g. a checkout of main), alternated
//    with the others: its own ratio, and its simulate against this build's report (before / after
//    figures from one run; a change that speeds up reading moves both commands).
//    With --threads: this build's simulate once per thread count (`CACHECOST_THREADS`; `auto` =
//    unset), each a row of its own, alternated with the others; every one must print the same bytes.
// 4. With --big: peak RSS of `sessions --json`, `report --by session --json` (both --no-cache; goal
//    ≤ 600 MB) and `simulate --scenario freecode --json` (goal ≤ 1.2 GB) on one ≈ 1 GB Claude Code
//    transcript (bench/corpus.mjs, the file bench/ccusage-speed.mjs uses), one run each.

import { existsSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildSingleFile } from './corpus.mjs';
import { measure, median } from './measure.mjs';

const repo = resolve(import.meta.dirname, '..');
const out = join(repo, 'bench', 'out');
const cachecostMain = join(repo, 'dist', 'cli', 'main.js');

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    mb: { type: 'string', default: '100' },
    big: { type: 'boolean', default: false },
    'big-mb': { type: 'string', default: '1024' },
    baseline: { type: 'string' },
    threads: { type: 'string' },
  },
});
const runs = Number(values.runs);
const corpusMb = Number(values.mb);
const big = values.big;
const bigMb = Number(values['big-mb']);
const baseline = values.baseline ?? null;

if (!existsSync(cachecostMain)) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}
mkdirSync(out, { recursive: true });

/** The FreeCode corpus of about `mb` MB, generated once (a `.complete` marker says it finished). */
async function freecodeCorpus(mb) {
  const dir = join(out, `freecode-${mb}mb`);
  if (!existsSync(join(dir, '.complete'))) {
    rmSync(dir, { recursive: true, force: true });
    const { generateCorpus } = await import('../dist/datagen/index.js');
    const t = performance.now();
    const corpus = generateCorpus({ outDir: dir, targetBytes: mb * 1e6 });
    writeFileSync(join(dir, '.complete'), JSON.stringify(corpus));
    console.log(
      `generated ${dir}: ${(corpus.bytes / 1e6).toFixed(0)} MB, ${corpus.sessions} sessions, ${corpus.requests} requests (${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );
  }
  return dir;
}

/** Uncoloured output: the runs' stdout is compared byte for byte. */
const PLAIN = { NO_COLOR: '1' };

const fmtS = (ms) => `${(ms / 1000).toFixed(2)} s`;

const dir = await freecodeCorpus(corpusMb);
console.log(`machine: Node ${process.version}; ${runs} alternating runs per command; medians`);
const simulateArgv = ['simulate', dir, '--scenario', 'freecode', '--json'];
const commands = {
  report: ['report', dir, '--json', '--no-cache'],
  simulate: simulateArgv,
};
/** Each simulate row's `CACHECOST_THREADS` (absent: unset, the automatic count). */
const threadsOf = {};
for (const threads of values.threads?.split(',') ?? []) {
  const name = `simulate@${threads}`;
  commands[name] = simulateArgv;
  if (threads !== 'auto') threadsOf[name] = threads;
}
if (baseline !== null) {
  commands.baseline = commands.simulate;
  commands['baseline report'] = commands.report;
}
const isBaseline = (name) => name.startsWith('baseline');
const names = Object.keys(commands);
const samples = Object.fromEntries(names.map((name) => [name, []]));
const outputs = new Set();
/** Another build's output, compared with this build's. */
const baselineOutputs = new Set();
for (let run = 0; run < runs; run += 1) {
  for (const name of run % 2 === 0 ? names : [...names].reverse()) {
    const env = threadsOf[name] === undefined ? PLAIN : { ...PLAIN, CACHECOST_THREADS: threadsOf[name] };
    const m = await measure(isBaseline(name) ? resolve(baseline) : cachecostMain, commands[name], env);
    samples[name].push(m);
    if (name.startsWith('simulate')) outputs.add(m.stdout);
    if (name === 'baseline') baselineOutputs.add(m.stdout);
  }
}
const row = (name) => ({
  threads: threadsOf[name] ?? 'auto',
  command: commands[name].map((a) => (a === dir ? `<freecode-${corpusMb}mb>` : a)).join(' '),
  wall: fmtS(median(samples[name].map((m) => m.ms))),
  cpu: fmtS(median(samples[name].map((m) => m.cpuMs))),
  peakRss: `${median(samples[name].map((m) => m.rssMb)).toFixed(0)} MB`,
});
console.table(names.map((name) => ({ build: isBaseline(name) ? baseline : 'this', ...row(name) })));
const ratio = (name, key, to = 'report') =>
  median(samples[name].map((m) => m[key])) / median(samples[to].map((m) => m[key]));
console.log(
  `simulate / report: ${ratio('simulate', 'ms').toFixed(2)}× wall, ${ratio('simulate', 'cpuMs').toFixed(2)}× CPU (goal ≤ 1.5× wall); ` +
    `simulate output ${outputs.size === 1 ? 'identical in every run' : 'DIFFERS BETWEEN RUNS'}`,
);
for (const name of names.filter((n) => n.startsWith('simulate@')))
  console.log(`${name} / report: ${ratio(name, 'ms').toFixed(2)}× wall, ${ratio(name, 'cpuMs').toFixed(2)}× CPU`);
if (baseline !== null) {
  console.log(
    `baseline simulate / baseline report: ${ratio('baseline', 'ms', 'baseline report').toFixed(2)}× wall, ` +
      `${ratio('baseline', 'cpuMs', 'baseline report').toFixed(2)}× CPU`,
  );
  console.log(
    `baseline simulate / this report: ${ratio('baseline', 'ms').toFixed(2)}× wall, ${ratio('baseline', 'cpuMs').toFixed(2)}× CPU; ` +
      `baseline output ${baselineOutputs.size === 1 && outputs.has([...baselineOutputs][0]) ? 'identical to this build’s' : 'DIFFERS from this build’s'}`,
  );
}
if (outputs.size !== 1) process.exitCode = 1;

if (big) {
  const file = await buildSingleFile({
    source: resolve(repo, '..', 'shared', 'real-logs', 'claude-code'),
    outFile: join(out, 'claude-code-1gb', 'projects', '-bench-big', '0badf00d-0000-4000-8000-000000000001.jsonl'),
    bytes: bigMb * 1e6,
  });
  console.log(`single Claude Code file: ${(file.bytes / 1e6).toFixed(0)} MB`);
  const dir = join(out, 'claude-code-1gb');
  for (const [label, argv, goalMb] of [
    ['sessions --json --no-cache', ['sessions', dir, '--json', '--no-cache'], 600],
    ['report --by session --json --no-cache', ['report', dir, '--by', 'session', '--json', '--no-cache'], 600],
    ['simulate --scenario freecode --json', ['simulate', dir, '--scenario', 'freecode', '--json'], 1200],
  ]) {
    const m = await measure(cachecostMain, argv, PLAIN);
    console.log(
      `${label}: ${fmtS(m.ms)} wall, ${fmtS(m.cpuMs)} CPU, peak RSS ${m.rssMb.toFixed(0)} MB (goal ≤ ${goalMb} MB: ${m.rssMb <= goalMb ? 'met' : 'not met'})`,
    );
  }
}
