#!/usr/bin/env node
// The fixed cost of every command: `cachecost --version`, `report` and `sessions` on an empty
// directory, each against `node -e 0`, as ratios of medians of alternating runs (goal for --version
// ≤ 1.5×). The cache is bypassed (`--no-cache`) and HOME points at an empty directory, so nothing
// but the process start, the imports and the output is measured.
//   node bench/startup.mjs [--runs N] [--bin path]   (after `npm run build`)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { measure, median } from './measure.mjs';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '15' }, bin: { type: 'string' } },
});
const runs = Number(values.runs);
const main = values.bin ?? join(resolve(import.meta.dirname, '..'), 'dist', 'cli', 'main.js');
const scratch = mkdtempSync(join(tmpdir(), 'cachecost-startup-'));
const empty = join(scratch, 'logs');
const home = join(scratch, 'home');
const env = { HOME: home, XDG_CACHE_HOME: join(home, '.cache'), NO_COLOR: '1' };

const cases = [
  { label: 'node -e 0', script: '-e', argv: ['0'] },
  { label: 'cachecost --version', script: main, argv: ['--version'] },
  { label: 'cachecost --help', script: main, argv: ['--help'] },
  {
    label: 'report --by session --json (empty dir)',
    script: main,
    argv: ['report', '--by', 'session', '--json', '--no-cache', empty],
  },
  { label: 'report (table, empty dir)', script: main, argv: ['report', '--no-cache', empty] },
  { label: 'sessions --json (empty dir)', script: main, argv: ['sessions', '--json', '--no-cache', empty] },
];

try {
  mkdirSync(empty, { recursive: true });
  mkdirSync(home, { recursive: true });
  const samples = cases.map(() => ({ ms: [], cpuMs: [], rssMb: [] }));
  // One warm-up round (disk cache), then alternate the cases so that load on the machine hits all alike.
  for (const c of cases) await measure(c.script, c.argv, env);
  for (let i = 0; i < runs; i += 1) {
    for (const [k, c] of cases.entries()) {
      const m = await measure(c.script, c.argv, env);
      samples[k].ms.push(m.ms);
      samples[k].cpuMs.push(m.cpuMs);
      samples[k].rssMb.push(m.rssMb);
    }
  }
  const base = samples[0];
  console.log(`${runs} alternating runs; medians; ratios to node -e 0 (wall, CPU)`);
  for (const [k, c] of cases.entries()) {
    const s = samples[k];
    const wall = median(s.ms);
    const cpu = median(s.cpuMs);
    console.log(
      `${c.label.padEnd(42)} ${wall.toFixed(0).padStart(5)} ms wall ${(wall / median(base.ms)).toFixed(2).padStart(5)}×` +
        `  ${cpu.toFixed(0).padStart(5)} ms CPU ${(cpu / median(base.cpuMs)).toFixed(2).padStart(5)}×` +
        `  ${median(s.rssMb).toFixed(0).padStart(4)} MB`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
