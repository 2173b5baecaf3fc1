#!/usr/bin/env node
// The replay's CPU alone, without the parse, DuckDB or the report around it: what `simulate
// --scenario freecode` does per session after loading it (the recorded fit, each scenario, the
// flags and the rows: `replaySession` of src/usecases/simulate-outcome.ts), over every session of
// a corpus loaded once, `--passes` times in one process. Prints the main thread's CPU milliseconds
// of each pass (Linux: /proc/thread-self/stat), one JSON line per build and process. The first pass
// includes the JIT's warm-up, as a real run does; later passes show the steady state.
//
//   node bench/replay-cpu.mjs [--runs 5] [--passes 3] [--corpus bench/out/freecode-100mb]
//                             [--node-flags=--single-threaded] <dist dir> [<dist dir> ...]
//
// Each build is a `dist/` directory (`npm run build`; the modules tsc writes, not the bundle), run
// in turn in a fresh process, alternated run by run. With `--node-flags=--single-threaded` V8
// compiles and collects on the main thread, so its CPU counts all the work: on a shared machine it
// moves far less than with concurrent compilation, whose timing changes what runs optimized.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median, threadCpuMs } from './measure.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '5' },
    passes: { type: 'string', default: '3' },
    corpus: { type: 'string', default: 'bench/out/freecode-100mb' },
    'node-flags': { type: 'string', default: '' },
    child: { type: 'string' },
  },
});

if (values.child !== undefined) {
  const dist = values.child;
  const { forEachSession } = await import(`${dist}/usecases/for-each-session.js`);
  const { resolvePrices } = await import(`${dist}/usecases/prices.js`);
  const { buildScenarios } = await import(`${dist}/simulate/scenario.js`);
  const { replaySession } = await import(`${dist}/usecases/simulate-outcome.js`);
  const sessions = [];
  await forEachSession([values.corpus], { content: 'text', parallel: { threads: 1 } }, (session) => {
    sessions.push(session);
  });
  const config = { scenarios: buildScenarios(['freecode'], {}), prices: await resolvePrices(null), details: false };
  const passes = [];
  let replayed = 0;
  for (let pass = 0; pass < Number(values.passes); pass++) {
    const start = threadCpuMs();
    for (const session of sessions) if (replaySession(session, config).outcome.replay !== null) replayed += 1;
    passes.push(threadCpuMs() - start);
  }
  console.log(JSON.stringify({ sessions: sessions.length, replayed, passes }));
} else {
  if (positionals.length === 0) {
    console.error('usage: node bench/replay-cpu.mjs [options] <dist dir> [<dist dir> ...]');
    process.exit(1);
  }
  const dists = positionals.map((dist) => resolve(dist));
  const flags = values['node-flags'] === '' ? [] : values['node-flags'].split(' ');
  const results = new Map(dists.map((dist) => [dist, []]));
  for (let run = 0; run < Number(values.runs); run++) {
    for (const dist of dists) {
      const args = [...flags, import.meta.filename, '--child', dist, '--corpus', values.corpus];
      const line = execFileSync(process.execPath, [...args, '--passes', values.passes], { encoding: 'utf8' });
      const result = JSON.parse(line);
      results.get(dist)?.push(result.passes);
      console.log(`${dist} ${line.trim()}`);
    }
  }
  for (const [dist, runs] of results) {
    const byPass = runs[0].map((_, pass) => runs.map((passes) => passes[pass]));
    const summary = byPass.map((cpu, pass) => `pass ${pass + 1} median ${median(cpu)} ms, min ${Math.min(...cpu)}`);
    console.log(`${dist}: ${summary.join('; ')}`);
  }
}
