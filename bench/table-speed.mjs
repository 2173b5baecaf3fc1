#!/usr/bin/env node
// `npm run bench:tables`: what drawing the terminal tables adds to a command, as RATIOS within one
// run: the same command with its text output (tables) and with `--json` (none), alternated run by
// run, each a fresh process, on a warm cache (the runs read the logs from the parse cache, so the
// tables are a large part of what is left).
//
//   node bench/table-speed.mjs [--runs 9] [--copies 48] [--baseline <main.js>]
//
// 1. Builds the unique-id Claude Code corpus of `--copies` copies of ../shared/real-logs/claude-code
//    (bench/corpus.mjs, the one bench/ccusage-speed.mjs uses) and warms a parse cache for each build
//    under bench/out/table-cache-<build>/.
// 2. Alternating: `sessions` (one row per session: 577 rows of 14 columns on 48 copies), `sessions
//    --json`, `report --by session` and its `--json`, and `simulate --target 120000` (a table per
//    session) with its `--json` on the 12-copy corpus (simulate has no cache), and the same with
//    `--html` (its page, a chart per session, written under bench/out/; the twin is the `--json` run
//    again); wall, CPU, medians.
// 3. Prints each text run's median, its --json twin's, and text / json. With --baseline, the same
//    commands of another build, alternated with these: before / after from one run. Every text run of
//    a command must print the same bytes in both builds (the tables are drawn the same).
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCopies } from './corpus.mjs';
import { measure, median } from './measure.mjs';

const repo = resolve(import.meta.dirname, '..');
const out = join(repo, 'bench', 'out');
const source = resolve(repo, '..', 'shared', 'real-logs', 'claude-code');
const cachecostMain = join(repo, 'dist', 'cli', 'main.js');

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '9' },
    copies: { type: 'string', default: '48' },
    baseline: { type: 'string' },
  },
});
const runs = Number(values.runs);
const copies = Number(values.copies);
if (!existsSync(cachecostMain)) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}
mkdirSync(out, { recursive: true });

const big = await buildCopies({ source, outDir: join(out, `claude-code-x${copies}`), copies });
const small = await buildCopies({ source, outDir: join(out, 'claude-code-x12'), copies: 12 });
const builds = [['this', cachecostMain]];
if (values.baseline !== undefined) builds.push(['baseline', resolve(values.baseline)]);

/** Each command's text run and its `--json` twin (`--html` writes its page and prints the text report). */
const htmlFile = join(out, 'table-speed.html');
const commands = [
  ['sessions', ['sessions', big.dir]],
  ['report --by session', ['report', '--by', 'session', big.dir]],
  ['simulate --target 120000', ['simulate', '--target', '120000', small.dir]],
  ['simulate --target 120000 --html', ['simulate', '--target', '120000', '--html', htmlFile, small.dir]],
].map(([name, argv]) => [name, argv, [...argv.filter((arg) => arg !== '--html' && arg !== htmlFile), '--json']]);
/** Uncoloured, and no terminal width: the same text whatever runs the bench. */
const envOf = (build) => ({ NO_COLOR: '1', COLUMNS: '', CACHECOST_CACHE_DIR: join(out, `table-cache-${build}`) });

// Warm each build's cache (and its code cache) once.
for (const [build, main] of builds)
  for (const [, argv, json] of commands) {
    await measure(main, argv, envOf(build));
    await measure(main, json, envOf(build));
  }

const times = new Map();
const texts = new Map();
const record = (key, result) => {
  const list = times.get(key) ?? [];
  list.push(result);
  times.set(key, list);
};
for (let run = 0; run < runs; run += 1)
  for (const [name, argv, json] of commands)
    for (const [build, main] of builds) {
      const text = await measure(main, argv, envOf(build));
      record(`${build} ${name}`, text);
      const seen = texts.get(name);
      if (seen === undefined) texts.set(name, text.stdout);
      else if (seen !== text.stdout) throw new Error(`${name}: the ${build} build printed other text`);
      record(`${build} ${name} --json`, await measure(main, json, envOf(build)));
    }

const fmt = (ms) => `${(ms / 1000).toFixed(3)} s`;
console.log(
  `Node ${process.version}; ${runs} alternating runs; medians; warm parse cache; ${copies} copies (${(big.bytes / 1e6).toFixed(0)} MB), simulate on 12 (${(small.bytes / 1e6).toFixed(0)} MB)`,
);
console.log('| build | command | text | --json | text / json | text CPU |');
console.log('|---|---|---|---|---|---|');
for (const [name] of commands)
  for (const [build] of builds) {
    const text = times.get(`${build} ${name}`) ?? [];
    const json = times.get(`${build} ${name} --json`) ?? [];
    const textMs = median(text.map((r) => r.ms));
    const jsonMs = median(json.map((r) => r.ms));
    console.log(
      `| ${build} | \`${name}\` | ${fmt(textMs)} | ${fmt(jsonMs)} | ${(textMs / jsonMs).toFixed(2)}× | ${fmt(median(text.map((r) => r.cpuMs)))} |`,
    );
  }
