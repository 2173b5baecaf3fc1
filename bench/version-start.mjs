#!/usr/bin/env node
// `cachecost --version` against `node -e 0`: median of alternating runs, as a ratio (goal ≤ 1.5×).
//   node bench/version-start.mjs [runs]   (after `npm run build`)
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const runs = Number(process.argv[2] ?? 15);
const main = join(resolve(import.meta.dirname, '..'), 'dist', 'cli', 'main.js');
const time = (args) => {
  const started = performance.now();
  execFileSync(process.execPath, args);
  return performance.now() - started;
};
const bare = [];
const version = [];
for (let i = 0; i < runs; i += 1) {
  bare.push(time(['-e', '0']));
  version.push(time([main, '--version']));
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
console.log(
  `node -e 0 ${median(bare).toFixed(0)} ms; cachecost --version ${median(version).toFixed(0)} ms; ratio ${(median(version) / median(bare)).toFixed(2)}×`,
);
