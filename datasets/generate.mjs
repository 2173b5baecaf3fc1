#!/usr/bin/env node
// Regenerates the synthetic FreeCode sessions of datasets/README.md: `npm run datasets` (build +
// this script), or `node datasets/generate.mjs [outDir]` after a build. The output directory is
// wiped and rewritten, so it holds exactly what the generator makes for the dataset seed.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeDataset } from '../dist/datagen/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = process.argv[2] === undefined ? join(here, 'freecode') : resolve(process.argv[2]);

const started = Date.now();
const sessions = writeDataset(outDir);
for (const { report: r, attempt, bytes } of sessions) {
  const readPct = r.promptTokens === 0 ? 0 : Math.round((100 * r.cacheReadTokens) / r.promptTokens);
  console.log(
    `${r.name.padEnd(20)} ${r.sessionId}  ${r.model.padEnd(18)} users ${String(r.userMessages).padStart(2)}  requests ${String(r.requests).padStart(3)}  ` +
      `peak ${String(r.peakPromptTokens).padStart(6)}  final ${String(r.finalPromptTokens).padStart(6)}  read ${String(readPct).padStart(2)}%  ` +
      `compactions ${r.compactions}  blocks ${r.hookBlocks}  ${(bytes / 1e6).toFixed(2)} MB  (attempt ${attempt})`,
  );
}
console.log(`wrote ${sessions.length} sessions to ${outDir} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
