#!/usr/bin/env node
// What a command pays V8's optimizing compiler (TurboFan), which profiles of the main thread do not
// show: it compiles on helper threads, and on a machine with few cores those compete with the main
// thread. Each command runs with `--single-threaded` (every compilation on the main thread, in turn,
// so its own timing is not stretched by the others) and `--trace-opt --trace-deopt`, and the bench
// sums what V8 reports:
// - `compile ms`: the optimizing phase of every TurboFan compilation (V8's own timing; the graph
//   building and scheduling of each job), and how many there were;
// - `wasted ms`: the compilations whose code was thrown away by a deoptimization (a shape or type
//   the code had not seen), which V8 then compiles again;
// - the functions whose compilations cost the most, with how often each was compiled, and each
//   deoptimization's reason.
// V8's timings move with the machine's speed (±10 % between runs here); compare runs of one build
// against another alternated, or the per-function figures, not one total against another day's.
//
//   node bench/jit.mjs [--runs 1] [--top 15] [--main dist/cli/main.js] -- <cachecost arguments>
//   e.g. node bench/jit.mjs -- simulate bench/out/freecode-100mb --scenario freecode --json
//        node bench/jit.mjs --main /other/dist/cli/main.js -- report --by session --json --no-cache <dir>
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const repo = resolve(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '1' },
    top: { type: 'string', default: '15' },
    main: { type: 'string', default: join(repo, 'dist', 'cli', 'main.js') },
  },
});
if (positionals.length === 0) {
  console.error('usage: node bench/jit.mjs [--runs 1] [--top 15] [--main <main.js>] -- <cachecost arguments>');
  process.exit(1);
}
if (!existsSync(values.main)) {
  console.error(`${values.main} is missing: run \`npm run build\` first`);
  process.exit(1);
}

// An anonymous function is printed `<JSFunction (sfi = …)>`: no name.
const COMPILED =
  /completed compiling (0x[0-9a-f]+) <JSFunction (?:(\S+) )?\(sfi.*took ([0-9.]+), ([0-9.]+), ([0-9.]+) ms/;
const DEOPT =
  /bailout \(kind: ([^,]*), reason: ([^)]*)\): begin\. deoptimizing (0x[0-9a-f]+) <JSFunction (?:(\S+) )?\(sfi/;

/** One run's compilations and deoptimizations, from V8's trace on stdout. */
function traceRun() {
  const run = spawnSync(
    process.execPath,
    ['--single-threaded', '--trace-opt', '--trace-deopt', values.main, ...positionals],
    { encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: '1' } },
  );
  if (run.status !== 0) {
    console.error(`cachecost exited with ${run.status}: ${run.stderr.trim().split('\n').pop()}`);
    process.exit(1);
  }
  const byFunction = new Map();
  const lastCompile = new Map();
  const deopts = [];
  let compileMs = 0;
  let compiles = 0;
  let wastedMs = 0;
  for (const line of run.stdout.split('\n')) {
    const compiled = COMPILED.exec(line);
    if (compiled !== null) {
      // V8 reports three phases (prepare, execute, finalize): their sum is the compilation.
      const ms = Number(compiled[3]) + Number(compiled[4]) + Number(compiled[5]);
      const name = compiled[2] ?? '(anonymous)';
      compileMs += ms;
      compiles += 1;
      const entry = byFunction.get(name) ?? { ms: 0, count: 0 };
      entry.ms += ms;
      entry.count += 1;
      byFunction.set(name, entry);
      lastCompile.set(compiled[1], { name, ms });
      continue;
    }
    const deopt = DEOPT.exec(line);
    if (deopt !== null) {
      const compiledBefore = lastCompile.get(deopt[3]);
      if (compiledBefore !== undefined) {
        wastedMs += compiledBefore.ms;
        lastCompile.delete(deopt[3]);
      }
      deopts.push({ name: deopt[4] ?? '(anonymous)', reason: deopt[2], ms: compiledBefore?.ms ?? null });
    }
  }
  return { compileMs, compiles, wastedMs, byFunction, deopts };
}

const runs = [];
for (let i = 0; i < Number(values.runs); i++) runs.push(traceRun());
const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
const fixed = (ms) => ms.toFixed(1);

console.log(
  `cachecost ${positionals.join(' ')} (${runs.length} run${runs.length === 1 ? '' : 's'}, --single-threaded)`,
);
console.log(
  `TurboFan: ${fixed(median(runs.map((r) => r.compileMs)))} ms in ${median(runs.map((r) => r.compiles))} compilations; ` +
    `thrown away by a deoptimization: ${fixed(median(runs.map((r) => r.wastedMs)))} ms ` +
    `(${median(runs.map((r) => r.deopts.length))} deoptimizations)` +
    (runs.length > 1 ? ` [totals per run: ${runs.map((r) => fixed(r.compileMs)).join(', ')}]` : ''),
);
const last = runs[runs.length - 1];
console.log(`\nthe costliest functions (last run): compile ms, compilations`);
for (const [name, { ms, count }] of [...last.byFunction].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(values.top)))
  console.log(`${fixed(ms).padStart(8)}  ${String(count).padStart(2)}  ${name}`);
console.log(`\ndeoptimizations (last run): the code's compile ms, function, reason`);
for (const { name, reason, ms } of [...last.deopts].sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0)))
  console.log(`${(ms === null ? '?' : fixed(ms)).padStart(8)}  ${name}: ${reason}`);
