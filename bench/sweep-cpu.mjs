#!/usr/bin/env node
// What a `tune` sweep costs per session, without the parse, the threads or the report around it:
// `sweepSession` (src/tune/sweep-session.ts) over every session of a corpus loaded once, with the
// `freecode` curve of `cachecost tune`'s default targets (40K to 400K in 20K steps), `--passes`
// times, the builds given alternated pass by pass in ONE process (each build's modules imported from
// its own `dist/`), so that the machine's drift falls on all of them alike. Prints the main thread's
// CPU milliseconds of each pass (Linux: /proc/thread-self/stat); the first pass includes the JIT's
// warm-up, later ones show the steady state. Run it with `--single-threaded` (V8 compiling and
// collecting on the main thread, so that its CPU counts all the work):
//
//   node --single-threaded bench/sweep-cpu.mjs [--passes 6] [--corpus bench/out/freecode-100mb]
//        <label>=<dist dir> [<label>=<dist dir> ...]
//
// Each build is a `dist/` directory (`npm run build`: the modules tsc writes) beside a
// `node_modules` (a checkout, or a copy of `dist/` and `package.json` with a link to one).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median, threadCpuMs } from './measure.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    passes: { type: 'string', default: '6' },
    corpus: { type: 'string', default: 'bench/out/freecode-100mb' },
  },
});
if (positionals.length === 0) {
  console.error('usage: node --single-threaded bench/sweep-cpu.mjs [options] <label>=<dist dir> ...');
  process.exit(1);
}

const builds = [];
for (const spec of positionals) {
  const at = spec.indexOf('=');
  const label = at === -1 ? spec : spec.slice(0, at);
  const dist = resolve(at === -1 ? spec : spec.slice(at + 1));
  const { forEachSession } = await import(`${dist}/usecases/for-each-session.js`);
  const { resolvePrices } = await import(`${dist}/usecases/prices.js`);
  const { buildScenarios } = await import(`${dist}/simulate/scenario.js`);
  const { sweepSession } = await import(`${dist}/tune/sweep-session.js`);
  const sessions = [];
  await forEachSession([values.corpus], { content: 'text', parallel: { threads: 1 } }, (session) => {
    sessions.push(session);
  });
  const targets = [];
  for (let target = 40_000; target <= 400_000; target += 20_000) targets.push(target);
  const scenarios = buildScenarios(['freecode'], { targetTokens: targets });
  const prices = await resolvePrices(null);
  const sweep = () => {
    let results = 0;
    for (const session of sessions) {
      const swept = sweepSession(session, scenarios, { prices, reuseEquivalent: true });
      if (swept.kind === 'swept') results += swept.results.length;
    }
    return results;
  };
  builds.push({ label, sweep, passes: [], results: null });
}

for (let pass = 0; pass < Number(values.passes); pass++) {
  for (const build of builds) {
    const start = threadCpuMs();
    const results = build.sweep();
    build.passes.push(threadCpuMs() - start);
    if (build.results !== null && build.results !== results) throw new Error(`${build.label}: results changed`);
    build.results = results;
  }
}

for (const build of builds) {
  const steady = build.passes.slice(1);
  console.log(
    `${build.label}: ${build.results} scenario results a pass; first pass ${build.passes[0]} ms; later passes median ${median(steady)} ms, min ${Math.min(...steady)} (${build.passes.join(', ')})`,
  );
}
