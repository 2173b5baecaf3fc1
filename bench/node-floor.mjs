#!/usr/bin/env node
// What Node itself can do on the bill's sum: a reference for `bench/ccusage-speed.mjs`, not a
// part of cachecost. The least a Node program can do to total Claude Code usage per session:
// every `.jsonl` under a directory read whole, split with `indexOf`, `JSON.parse` of the lines
// holding `"usage"` only, each message counted once (message id + request id, its last line, as
// cachecost dedupes), token sums per session id. No other line is read: no malformed-line check,
// no conversation chain, no prices, no cache. Prints the sums in the shape of `cachecost report
// --json`'s `total`, so the bench can check them against ccusage's.
// `--threads 2`: the files are shared out between the main thread and one worker (alternately, in
// path order), each thread's lines merged back in path order: the same sums.
//
//   node bench/node-floor.mjs [--threads 1|2] <directory>
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const NEEDLE = Buffer.from('"usage"');

/**
 * Each file's counted lines: [sessionId, message key or null, uncached, read, write, output]
 * (numbers, not the usage objects: a worker's answer is cloned to the main thread), a message's
 * last line in the file only (the last line of the last file wins when they are merged in order).
 */
function readFiles(files) {
  return files.map((file) => {
    const keyed = new Map();
    const unkeyed = [];
    const buffer = readFileSync(file);
    let start = 0;
    while (start < buffer.length) {
      let end = buffer.indexOf(10, start);
      if (end < 0) end = buffer.length;
      const found = buffer.indexOf(NEEDLE, start);
      if (found >= 0 && found < end) {
        let line;
        try {
          line = JSON.parse(buffer.toString('utf8', start, end));
        } catch {
          line = undefined;
        }
        const usage = line?.type === 'assistant' ? line.message?.usage : undefined;
        if (usage !== undefined && usage !== null) {
          const id = line.message.id;
          // Without a request id, by the message id alone (formats.md §1.4's recommended rule).
          const key = id === undefined ? null : `${id}:${line.requestId ?? ''}`;
          const entry = [
            line.sessionId,
            key,
            usage.input_tokens ?? 0,
            usage.cache_read_input_tokens ?? 0,
            usage.cache_creation_input_tokens ?? 0,
            usage.output_tokens ?? 0,
          ];
          if (key === null) unkeyed.push(entry);
          else keyed.set(key, entry);
        }
      }
      start = end + 1;
    }
    return [...keyed.values(), ...unkeyed];
  });
}

if (!isMainThread) {
  parentPort.postMessage(readFiles(workerData));
} else {
  const { values, positionals } = parseArgs({
    options: { threads: { type: 'string', default: '1' } },
    allowPositionals: true,
  });
  const threads = Number(values.threads);
  const root = positionals[0];
  if (root === undefined || (threads !== 1 && threads !== 2)) {
    console.error('usage: node bench/node-floor.mjs [--threads 1|2] <directory>');
    process.exit(2);
  }
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.jsonl')) files.push(path);
    }
  };
  walk(root);
  files.sort();

  let perFile;
  if (threads === 1) perFile = readFiles(files);
  else {
    const worker = new Worker(new URL(import.meta.url), { workerData: files.filter((_, i) => i % 2 === 1) });
    const theirs = new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    const mine = readFiles(files.filter((_, i) => i % 2 === 0));
    const other = await theirs;
    await worker.terminate();
    perFile = files.map((_, i) => (i % 2 === 0 ? mine[i / 2] : other[(i - 1) / 2]));
  }

  // The last line of a message wins (formats.md §1.4: later lines carry the larger output count).
  const byMessage = new Map();
  const unkeyed = [];
  for (const counted of perFile)
    for (const entry of counted) {
      if (entry[1] === null) unkeyed.push(entry);
      else byMessage.set(entry[1], entry);
    }
  const sessions = new Map();
  const total = { uncached: 0, read: 0, write: 0, output: 0 };
  for (const [sessionId, , uncached, read, write, output] of [...byMessage.values(), ...unkeyed]) {
    const sums = sessions.get(sessionId) ?? { uncached: 0, read: 0, write: 0, output: 0 };
    sessions.set(sessionId, sums);
    for (const target of [sums, total]) {
      target.uncached += uncached;
      target.read += read;
      target.write += write;
      target.output += output;
    }
  }
  const shape = (sums) => ({
    uncachedInputTokens: sums.uncached,
    cacheReadTokens: sums.read,
    cacheWrite5mTokens: sums.write,
    cacheWrite1hTokens: 0,
    cacheWriteUnknownTtlTokens: 0,
    outputTokens: sums.output,
  });
  const bySession = [...sessions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  process.stdout.write(
    `${JSON.stringify({ sessions: bySession.map(([id, sums]) => ({ id, ...shape(sums) })), total: shape(total) }, null, 2)}\n`,
  );
}
