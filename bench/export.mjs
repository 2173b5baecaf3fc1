#!/usr/bin/env node
// `node bench/export.mjs` (after `npm run build`): `cachecost export` against `cachecost report`
// on the same Claude Code corpus, as a ratio measured in one run (goal: export ≤ 1.5× report).
//
// The corpus is the speed benchmark's: rewritten copies of ../shared/real-logs/claude-code (read
// in place, never committed), 48 copies ≈ 259 MB (CACHECOST_BENCH_COPIES to change it), built by
// bench/corpus.mjs when present, else by the small copier below (same id rewriting idea: every
// copy gets its own session ids, so nothing is dropped as a duplicate). Both commands run through
// their use cases in this process, alternately, three times each; the medians are compared.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { billSessions, exportSessions } from '../dist/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, '..', '..', 'shared', 'real-logs', 'claude-code');
const copies = Number(process.env.CACHECOST_BENCH_COPIES ?? 48);
const rounds = Number(process.env.CACHECOST_BENCH_ROUNDS ?? 3);
const work = await mkdtemp(join(tmpdir(), 'cachecost-export-bench-'));

function files(root) {
  const out = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...files(path));
    else if (entry.isFile() && entry.name.endsWith('.jsonl')) out.push(path);
  }
  return out.sort();
}

/** Copy k of every transcript, with the first group of every UUID and the msg_/req_ ids made unique to the copy. */
async function fallbackCopies(outDir) {
  let bytes = 0;
  const texts = files(source).map((file) => [relative(source, file), readFileSync(file, 'utf8')]);
  for (let copy = 0; copy < copies; copy += 1) {
    const mask = Math.imul(copy, 0x9e3779b1) >>> 0;
    const rewrite = (text) =>
      copy === 0
        ? text
        : text
            .replace(/[0-9a-f]{8}(?=-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/g, (g) =>
              ((Number.parseInt(g, 16) ^ mask) >>> 0).toString(16).padStart(8, '0'),
            )
            .replace(/\b(msg|req)_([0-9A-Za-z]+)/g, (_m, kind, id) => `${kind}_${id}c${copy}`);
    for (const [rel, text] of texts) {
      const parts = rewrite(rel).split('/');
      if (parts[0] === 'projects' && parts.length > 2) parts[1] = `${parts[1]}-c${copy}`;
      const path = join(outDir, ...parts);
      await mkdir(dirname(path), { recursive: true });
      const body = rewrite(text);
      bytes += Buffer.byteLength(body);
      await writeFile(path, body);
    }
  }
  return { dir: outDir, bytes };
}

async function corpus() {
  const outDir = join(work, `claude-code-x${copies}`);
  const shared = join(here, 'corpus.mjs');
  if (existsSync(shared)) {
    const { buildCopies } = await import(shared);
    const built = await buildCopies({ source, outDir, copies });
    return { dir: built.dir ?? outDir, bytes: built.bytes };
  }
  return fallbackCopies(outDir);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const stamp = { runId: 'bench', host: 'bench', cachecostVersion: 'bench', startedAtMs: 0 };

try {
  if (!existsSync(source)) {
    console.log(`skipped: ${source} not found`);
  } else {
    const built = await corpus();
    console.log(`corpus: ${copies} copies of ${source}, ${(built.bytes / 1e6).toFixed(0)} MB`);
    const reportMs = [];
    const exportMs = [];
    let rows = null;
    let bill = null;
    for (let round = 0; round < rounds; round += 1) {
      let t = performance.now();
      const report = await billSessions({ paths: [built.dir] });
      reportMs.push(performance.now() - t);
      const out = join(work, `out-${round}`);
      t = performance.now();
      const exported = await exportSessions({ paths: [built.dir], stamp, outDir: out, dbPath: null });
      exportMs.push(performance.now() - t);
      rows = exported.parquet?.rows ?? null;
      bill = report.total;
      await rm(out, { recursive: true, force: true });
    }
    console.log(`report: ${bill?.requests} requests, ${bill?.costUsd} USD; export rows: ${JSON.stringify(rows)}`);
    console.log(
      `report  median ${(median(reportMs) / 1000).toFixed(2)} s  (${reportMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')})`,
    );
    console.log(
      `export  median ${(median(exportMs) / 1000).toFixed(2)} s  (${exportMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')})`,
    );
    console.log(`ratio export / report: ${(median(exportMs) / median(reportMs)).toFixed(2)}× (goal ≤ 1.5×)`);
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
