#!/usr/bin/env node
// The fixed cost of every command: `cachecost --version`, `--help`, `report` and `sessions` on an
// empty directory, each against `node -e 0`, as ratios of medians of alternating runs (goal for
// --version ≤ 1.5×). The cache is bypassed (`--no-cache`) and HOME points at an empty directory,
// so nothing but the process start, the imports, the option parsing and the output is measured.
// Wall time swings with the load of a shared machine; the CPU time of each process (read by a
// preloaded module from `process.cpuUsage()` at exit, in µs) swings less.
//   node bench/startup.mjs [--runs N] [--bin path]...   (after `npm run build`; several --bin: compared in one run)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { median } from './measure.mjs';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '15' }, bin: { type: 'string', multiple: true } },
});
const runs = Number(values.runs);
const bins = values.bin ?? [join(resolve(import.meta.dirname, '..'), 'dist', 'cli', 'main.js')];
const scratch = mkdtempSync(join(tmpdir(), 'cachecost-startup-'));
const empty = join(scratch, 'logs');
const home = join(scratch, 'home');
const cpuFile = join(scratch, 'cpu.json');
const env = {
  ...process.env,
  HOME: home,
  XDG_CACHE_HOME: join(home, '.cache'),
  NO_COLOR: '1',
  CACHECOST_BENCH_CPU_FILE: cpuFile,
};
// Loaded before the script in every case alike (`node -e 0` included).
const cpuAtExit =
  "data:text/javascript,import{writeFileSync}from'node:fs';process.on('exit',()=>{const u=process.cpuUsage();writeFileSync(process.env.CACHECOST_BENCH_CPU_FILE,String((u.user+u.system)/1000))})";

const cases = [
  { label: 'node -e 0', argv: ['-e', '0'] },
  ...bins.flatMap((main) => {
    const prefix = bins.length > 1 ? `${main}: ` : '';
    return [
      { label: `${prefix}cachecost --version`, argv: [main, '--version'] },
      { label: `${prefix}cachecost --help`, argv: [main, '--help'] },
      {
        label: `${prefix}report --by session --json (empty dir)`,
        argv: [main, 'report', '--by', 'session', '--json', '--no-cache', empty],
      },
      { label: `${prefix}report (table, empty dir)`, argv: [main, 'report', '--no-cache', empty] },
      { label: `${prefix}sessions --json (empty dir)`, argv: [main, 'sessions', '--json', '--no-cache', empty] },
    ];
  }),
];

/** Runs `node argv…`; resolves to { ms, cpuMs }, rejects on a non-zero exit. */
function time(argv) {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [`--import=${cpuAtExit}`, ...argv], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const stderr = [];
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0)
        return reject(new Error(`node ${argv.join(' ')} exited ${code}: ${Buffer.concat(stderr).toString()}`));
      resolvePromise({ ms, cpuMs: Number(readFileSync(cpuFile, 'utf8')) });
    });
  });
}

try {
  mkdirSync(empty, { recursive: true });
  mkdirSync(home, { recursive: true });
  const samples = cases.map(() => ({ ms: [], cpuMs: [] }));
  // One warm-up round (disk cache), then alternate the cases so that load on the machine hits all alike.
  for (const c of cases) await time(c.argv);
  for (let i = 0; i < runs; i += 1) {
    for (const [k, c] of cases.entries()) {
      const m = await time(c.argv);
      samples[k].ms.push(m.ms);
      samples[k].cpuMs.push(m.cpuMs);
    }
  }
  const [wall0, cpu0] = [median(samples[0].ms), median(samples[0].cpuMs)];
  console.log(`${runs} alternating runs; medians; ratios to node -e 0`);
  for (const [k, c] of cases.entries()) {
    const [wall, cpu] = [median(samples[k].ms), median(samples[k].cpuMs)];
    console.log(
      `${c.label.padEnd(bins.length > 1 ? 70 : 40)} wall ${wall.toFixed(0).padStart(5)} ms ${(wall / wall0).toFixed(2).padStart(5)}×` +
        `   CPU ${cpu.toFixed(0).padStart(5)} ms ${(cpu / cpu0).toFixed(2).padStart(5)}×`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
