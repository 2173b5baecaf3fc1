#!/usr/bin/env node
// Cold `report --by session --json --no-cache` and `sessions --json --no-cache` with the Claude Code
// sessions built on 1, 2, … threads ($CACHECOST_THREADS: the main thread plus workers that read and
// build whole sessions, src/ingest/claude-code/build-ahead.ts), against
// `ccusage session --json --offline`, alternating run by run on the corpora `bench/ccusage-speed.mjs`
// built under bench/out/ (it must have run once: this bench builds nothing and appends nothing).
// Prints medians of wall and CPU time (user + system, every thread), peak RSS, ratios to ccusage,
// the CPU time by thread (bench/thread-cpu.mjs: the main thread, V8's and Node's helper threads,
// the threads the run started: its workers), and fails when an output differs by a byte from the
// one-thread run's.
// `--baseline <another build's dist/cli/main.js>`: that build's one-thread runs alternate too
// (before / after in one run); its outputs must be the same bytes.
// `--threads` takes `auto` too: CACHECOST_THREADS unset, the automatic count.
//   node bench/parse-threads.mjs [--runs 3] [--corpora 12,48] [--threads 1,2,3,auto] [--baseline …]   (after `npm run build`)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { measure, median } from './measure.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    corpora: { type: 'string', default: '12,48' },
    threads: { type: 'string', default: '1,2,3' },
    baseline: { type: 'string' },
  },
});
const root = resolve(import.meta.dirname, '..');
const out = join(root, 'bench', 'out');
const main = join(root, 'dist', 'cli', 'main.js');
const ccusage = join(out, 'ccusage-20.0.24', 'node_modules', 'ccusage', 'src', 'cli.js');
const threads = values.threads.split(',').map((n) => (n === 'auto' ? n : Number(n)));
const baseline = values.baseline === undefined ? null : resolve(values.baseline);
if (baseline !== null && !existsSync(baseline)) throw new Error(`--baseline: no such file: ${baseline}`);
const runs = Number(values.runs);
for (const path of [main, ccusage])
  if (!existsSync(path)) throw new Error(`${path} is missing: npm run build, then node bench/ccusage-speed.mjs once`);

const fmt = (ms) => `${(ms / 1000).toFixed(2)} s`;
for (const copies of values.corpora.split(',')) {
  const corpus = join(out, `claude-code-x${copies}`);
  if (!existsSync(corpus)) throw new Error(`${corpus} is missing: node bench/ccusage-speed.mjs builds it`);
  const cases = [
    {
      label: 'ccusage session --json --offline',
      script: ccusage,
      argv: ['session', '--json', '--offline'],
      env: { HOME: join(out, 'empty-home'), CLAUDE_CONFIG_DIR: corpus },
    },
    ...['report', 'sessions'].flatMap((command) => {
      const argv =
        command === 'report'
          ? ['report', '--by', 'session', '--json', '--no-cache', corpus]
          : ['sessions', '--json', '--no-cache', corpus];
      const before =
        baseline === null
          ? []
          : [
              {
                label: `${command} (baseline, one thread)`,
                command,
                script: baseline,
                argv,
                env: { CACHECOST_THREADS: '1' },
              },
            ];
      return [
        ...before,
        ...threads.map((n) => ({
          label: n === 'auto' ? `${command} (default threads)` : `${command} (CACHECOST_THREADS=${n})`,
          command,
          script: main,
          argv,
          // Empty: unset (src/usecases/for-each-session.ts), the automatic count.
          env: { CACHECOST_THREADS: n === 'auto' ? '' : String(n) },
        })),
      ];
    }),
  ];
  const samples = cases.map(() => []);
  const firstOutput = new Map();
  const threadsDir = mkdtempSync(join(tmpdir(), 'cachecost-thread-cpu-'));
  const threadCpuFile = join(threadsDir, 'cpu.json');
  for (let run = 0; run < runs; run += 1) {
    for (const [i, c] of cases.entries()) {
      rmSync(threadCpuFile, { force: true });
      // cachecost's runs only: the figures by thread are for its workers.
      const byThread =
        c.command === undefined
          ? {}
          : {
              NODE_OPTIONS:
                `${process.env.NODE_OPTIONS ?? ''} --import=${join(import.meta.dirname, 'thread-cpu.mjs')}`.trim(),
              CACHECOST_BENCH_THREAD_CPU: threadCpuFile,
            };
      const result = await measure(c.script, c.argv, { ...c.env, ...byThread });
      result.threads = existsSync(threadCpuFile) ? JSON.parse(readFileSync(threadCpuFile, 'utf8')) : null;
      samples[i].push(result);
      if (c.command === undefined) continue;
      const seen = firstOutput.get(c.command);
      if (seen === undefined) firstOutput.set(c.command, result.stdout);
      else if (seen !== result.stdout) throw new Error(`${c.label}: output differs from the first ${c.command} run`);
    }
  }
  rmSync(threadsDir, { recursive: true, force: true });
  const base = samples[0];
  console.log(`\n${copies} copies (${corpus}), ${runs} alternating runs, medians:`);
  console.log('| command | wall | CPU | wall / ccusage | CPU / ccusage | peak RSS | CPU main / helpers / workers |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [i, c] of cases.entries()) {
    const wall = median(samples[i].map((s) => s.ms));
    const cpu = median(samples[i].map((s) => s.cpuMs));
    const rss = median(samples[i].map((s) => s.rssMb));
    const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
    const byThread = samples[i].every((s) => s.threads !== null)
      ? ['main', 'helpers', 'late'].map((group) => fmt(median(samples[i].map((s) => s.threads[group])))).join(' / ')
      : 'n/a';
    console.log(
      `| ${c.label} | ${fmt(wall)} | ${fmt(cpu)} | ${ratio(wall, median(base.map((s) => s.ms)))} | ${ratio(cpu, median(base.map((s) => s.cpuMs)))} | ${rss.toFixed(0)} MB | ${byThread} |`,
    );
  }
}
