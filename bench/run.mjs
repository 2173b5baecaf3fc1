#!/usr/bin/env node
// `npm run bench`: performance as ratios within one run (never absolute timings in tests).
//
// 1. Generates a large FreeCode corpus on the fly (≥ 500 MB by default; CACHECOST_BENCH_MB to
//    change it) into a temporary directory with the dataset generator — nothing is committed.
// 2. Times ingest only (discover + stream + build every session, with text) over it.
// 3. Times `simulate` (ingest + recorded fit + replay of `recorded`, `freecode@120000` and `none`
//    + DuckDB pricing) over the same corpus, in the same process.
// 4. Prints requests replayed per second and the ratio simulate / ingest-only.
// 5. Runs the tune benchmark (a 100-scenario sweep against one simulate) when it exists.
import { cpus, tmpdir, totalmem } from 'node:os';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateCorpus } from '../dist/datagen/index.js';
import { forEachSession } from '../dist/usecases/for-each-session.js';
import { simulateSessions as runSimulation } from '../dist/index.js';
import { buildScenarios } from '../dist/simulate/scenario.js';

const targetMb = Number(process.env.CACHECOST_BENCH_MB ?? 520);
const keep = process.env.CACHECOST_BENCH_KEEP === '1';
const dir = await mkdtemp(join(tmpdir(), 'cachecost-bench-'));

function line(label, value) {
  console.log(`${label.padEnd(34)} ${value}`);
}

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
);
let t = performance.now();
const corpus = generateCorpus({ outDir: dir, targetBytes: targetMb * 1e6 });
line(
  'generated corpus',
  `${(corpus.bytes / 1e6).toFixed(0)} MB, ${corpus.sessions} sessions, ${corpus.requests} requests (${((performance.now() - t) / 1000).toFixed(1)} s)`,
);

// Ingest only: the same loader simulate uses, with text (the replay reads it).
t = performance.now();
let sessions = 0;
let requests = 0;
const issues = await forEachSession([dir], { content: 'text' }, (session) => {
  sessions += 1;
  requests += session.requests.length;
});
const ingestMs = performance.now() - t;
line(
  'ingest only',
  `${(ingestMs / 1000).toFixed(2)} s, ${(corpus.bytes / 1e6 / (ingestMs / 1000)).toFixed(0)} MB/s, ${sessions} sessions, ${issues.length} issues`,
);

const scenarios = buildScenarios(['freecode', 'none'], { targetTokens: [120_000] });
t = performance.now();
const outcome = await runSimulation({ paths: [dir], scenarios, pricingFile: null, dbPath: null, csvDir: null });
const simulateMs = performance.now() - t;
// Each scenario replays every request; the recorded fit replays each candidate policy twice more.
const replayed = requests * scenarios.length;
line(
  'simulate (3 scenarios + DuckDB)',
  `${(simulateMs / 1000).toFixed(2)} s, ${outcome.report.sessions.length} sessions`,
);
line(
  'requests replayed per second',
  `${Math.round(replayed / (simulateMs / 1000)).toLocaleString('en-US')} (${replayed} scenario-requests)`,
);
line('ratio simulate / ingest-only', `${(simulateMs / ingestMs).toFixed(2)}×`);

const tuneBench = new URL('./tune-bench.mjs', import.meta.url);
if (existsSync(tuneBench)) {
  const { runTuneBench } = await import(tuneBench.href);
  await runTuneBench({ paths: [dir], log: line });
}

if (!keep) await rm(dir, { recursive: true, force: true });
else line('corpus kept at', dir);
