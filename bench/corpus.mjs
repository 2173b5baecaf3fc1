// Unique-id Claude Code corpora for the speed benchmarks, built from ../shared/real-logs/claude-code
// (read in place, never copied into the repository): every copy rewrites session ids (UUIDs, in
// file names and in the lines), message ids (`msg_…`) and request ids (`req_…`), so neither
// cachecost nor ccusage can drop a copy as a duplicate; both really parse every byte.
//
//   buildCopies({ source, outDir, copies })   → <outDir>/projects/<project>-c<k>/<uuid'>.jsonl …
//   buildSingleFile({ source, outFile, bytes }) → one transcript of about `bytes` bytes
//   ageFiles(dir, days)                        → every file's mtime set `days` before now
//
// Deterministic: the same arguments give the same bytes (the corpus is rebuilt only when missing).
import { createWriteStream, existsSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Buffer } from 'node:buffer';
import { once } from 'node:events';

const UUID = /[0-9a-f]{8}(?=-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/g;
const PREFIXED_ID = /\b(msg|req)_([0-9A-Za-z]+)/g;

/** Rewrites the ids of one copy: the first UUID group is XOR-ed with a per-copy mask; msg_/req_ ids get a suffix. */
export function rewriteIds(text, copy) {
  if (copy === 0) return text;
  const mask = Math.imul(copy, 0x9e3779b1) >>> 0;
  return text
    .replace(UUID, (group) => ((Number.parseInt(group, 16) ^ mask) >>> 0).toString(16).padStart(8, '0'))
    .replace(PREFIXED_ID, (_match, kind, id) => `${kind}_${id}c${copy}`);
}

function listFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.jsonl')) out.push(path);
    }
  };
  walk(root);
  return out.sort();
}

async function writeAll(path, chunks) {
  await mkdir(dirname(path), { recursive: true });
  const out = createWriteStream(path);
  for (const chunk of chunks) if (!out.write(chunk)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

/** `copies` rewritten copies of every transcript under `source`; returns { dir, bytes, files }. Reuses a finished corpus. */
export async function buildCopies({ source, outDir, copies }) {
  const done = join(outDir, '.complete');
  const files = listFiles(source);
  if (!existsSync(done)) {
    await rm(outDir, { recursive: true, force: true });
    const texts = files.map((file) => [relative(source, file), readFileSync(file, 'utf8')]);
    for (let copy = 0; copy < copies; copy += 1) {
      for (const [rel, text] of texts) {
        // The project directory gets the copy number too, so sessions stay apart by project as well.
        const parts = rewriteIds(rel, copy).split('/');
        if (parts[0] === 'projects' && parts.length > 2) parts[1] = `${parts[1]}-c${copy}`;
        await writeAll(join(outDir, ...parts), [rewriteIds(text, copy)]);
      }
    }
    await writeAll(done, ['']);
  }
  return { dir: outDir, bytes: sizeOf(outDir), files: files.length * copies };
}

/**
 * Dates every file under `dir` `days` back, as a user's history mostly is (a corpus just built is
 * dated now, which no one's months of logs are). The cache stores line by line only what was
 * written to within the last day (src/ingest/parse-cache.ts).
 */
export function ageFiles(dir, days) {
  const when = new Date(Date.now() - days * 86_400_000);
  for (const file of listFiles(dir)) utimesSync(file, when, when);
}

function sizeOf(dir) {
  let bytes = 0;
  for (const file of listFiles(dir)) bytes += statSync(file).size;
  return bytes;
}

/** One main transcript of about `bytes` bytes: every source transcript, copy after copy, ids rewritten per copy. */
export async function buildSingleFile({ source, outFile, bytes }) {
  if (existsSync(outFile)) return { file: outFile, bytes: statSync(outFile).size };
  const texts = listFiles(source).map((file) => readFileSync(file, 'utf8'));
  const tmp = `${outFile}.tmp`;
  await mkdir(dirname(outFile), { recursive: true });
  const out = createWriteStream(tmp);
  let written = 0;
  for (let copy = 0; written < bytes; copy += 1) {
    for (const text of texts) {
      const chunk = rewriteIds(text.endsWith('\n') ? text : `${text}\n`, copy);
      written += Buffer.byteLength(chunk);
      if (!out.write(chunk)) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
  await rename(tmp, outFile);
  return { file: outFile, bytes: written };
}
