/**
 * The incremental cache of parsed log lines: a re-run over unchanged logs reads each file's parsed
 * entries back instead of parsing its lines again, and a JSONL file that only grew parses only the
 * new bytes. Not part of the pure core: ingest gets the cache (or null) as an argument; the CLI
 * decides the directory.
 *
 * Trust rules (a wrong cache would be a silently wrong bill, so anything doubtful is re-read):
 * - An entry is keyed by the file's path and the caller's key (format and content mode), and
 *   records the file's identity (device, inode), size, mtime and the byte offset after its last
 *   complete line. The unterminated tail after that offset is never cached: it is parsed every run.
 * - Same identity, size and mtime → the entries are used as they are; unless the file was modified
 *   less than `RACY_MS` before the entry was written (a same-size rewrite within the mtime's
 *   resolution would look unchanged), then the file is re-read whole.
 * - Same identity and larger → the bytes just before the cached offset must hash as recorded (the
 *   file was appended to, not rewritten); then only the bytes after the offset are parsed.
 * - Anything else (smaller, other inode, changed mtime with the same size, tail mismatch) → whole re-read.
 * - An entry from another cachecost build (the fingerprint hashes the package version and every
 *   ingest source file), an unreadable or corrupt one (a checksum covers every line), or a temp
 *   file left by a run killed mid-write (never renamed into place) is ignored and rewritten.
 * Entries are written to a temp file and renamed (atomic); a cache that cannot be written is skipped.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, readFileSync, statSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finished } from 'node:stream/promises';
import { type FileLine, scanFileLines } from './lines.js';

/** An open cache: its directory, the fingerprint of the code that writes its entries, the run's clock. */
export type ParseCache = { readonly dir: string; readonly fingerprint: string; readonly nowMs: number };

/** Why an entry was or was not used (tests and `--verbose` statistics). */
export type CacheOutcome = 'disabled' | 'hit' | 'grown' | 'miss' | 'stale';

/** How one adapter turns lines into cacheable entries. Entries must survive a JSON round trip unchanged. */
export type LineParser<T> = {
  /** Format, content mode and entry version, e.g. `claude-code/sizes/1`. */
  readonly key: string;
  /** The entry of one line, or null when the line leaves nothing (blank, ignored). */
  readonly parse: (line: FileLine) => T | null;
};

const LAYOUT = 'parsed-v1';
const RACY_MS = 2_000;
const TAIL_BYTES = 4_096;
const STALE_TEMP_MS = 10 * 60_000;

type Header = {
  readonly fingerprint: string;
  readonly key: string;
  readonly file: string;
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** Bytes of complete lines covered by the entries. */
  readonly offset: number;
  /** Lines (blank and ignored ones included) in those bytes. */
  readonly lines: number;
  /** sha256 of up to `TAIL_BYTES` bytes before `offset`. */
  readonly tail: string;
  readonly writtenAtMs: number;
  readonly count: number;
  /** sha256 of the entry lines as written. */
  readonly checksum: string;
};

let fingerprintMemo: Promise<string> | null = null;

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (/\.(js|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

/** sha256 of the package version and every source file of `ingest/`: any parser change invalidates every entry. */
function codeFingerprint(): Promise<string> {
  fingerprintMemo ??= (async () => {
    const hash = createHash('sha256');
    const ingestDir = dirname(fileURLToPath(import.meta.url));
    hash.update(await readFile(new URL('../../package.json', import.meta.url)));
    for (const file of await sourceFiles(ingestDir)) {
      hash.update(`\0${relative(ingestDir, file)}\0`);
      hash.update(await readFile(file));
    }
    return hash.digest('hex');
  })();
  return fingerprintMemo;
}

async function sweepTemps(dir: string, nowMs: number): Promise<void> {
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.tmp')) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info !== null && nowMs - info.mtimeMs > STALE_TEMP_MS) await rm(path, { force: true });
  }
}

/**
 * Opens (creating) the cache under `dir`; null when it cannot be used (then every file is parsed,
 * as with `--no-cache`). `mustExist`: a directory that has to exist already (a default location under
 * a home that does not exist is not created).
 */
export async function openParseCache(
  dir: string,
  options: { readonly mustExist: string | null; readonly nowMs: number },
): Promise<ParseCache | null> {
  try {
    if (options.mustExist !== null && !(await stat(options.mustExist)).isDirectory()) return null;
    const root = join(dir, LAYOUT);
    await mkdir(root, { recursive: true });
    await sweepTemps(root, options.nowMs);
    return { dir: root, fingerprint: await codeFingerprint(), nowMs: options.nowMs };
  } catch {
    return null;
  }
}

function entryPath(cache: ParseCache, key: string, file: string): string {
  return join(cache.dir, `${createHash('sha256').update(`${key}\0${file}`).digest('hex').slice(0, 40)}.jsonl`);
}

/** The entries and header of a cache file; null when missing, corrupt or written by other code. */
async function loadEntry<T>(
  path: string,
  cache: ParseCache,
  key: string,
  file: string,
): Promise<{ header: Header; entries: T[] } | null> {
  try {
    const hash = createHash('sha256');
    const texts: string[] = [];
    let complete = true;
    await scanFileLines(path, (line, text) => {
      if (!line.terminated) complete = false;
      else texts.push(text);
    });
    if (!complete) return null;
    const last = texts.pop();
    if (last === undefined) return null;
    const header = JSON.parse(last) as Header;
    if (
      header.fingerprint !== cache.fingerprint ||
      header.key !== key ||
      header.file !== file ||
      header.count !== texts.length
    )
      return null;
    for (const text of texts) hash.update(`${text}\n`);
    if (hash.digest('hex') !== header.checksum) return null;
    return { header, entries: texts.map((text) => JSON.parse(text) as T) };
  } catch {
    return null;
  }
}

async function tailHash(file: string, offset: number): Promise<string> {
  const start = Math.max(0, offset - TAIL_BYTES);
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(offset - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return createHash('sha256').update(buffer.subarray(0, bytesRead)).digest('hex');
  } finally {
    await handle.close();
  }
}

async function writeEntry<T>(
  path: string,
  header: Omit<Header, 'checksum' | 'count'>,
  entries: readonly T[],
): Promise<void> {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    const out = createWriteStream(temp);
    const hash = createHash('sha256');
    for (const entry of entries) {
      const text = `${JSON.stringify(entry)}\n`;
      hash.update(text);
      if (!out.write(text)) await once(out, 'drain');
    }
    out.end(`${JSON.stringify({ ...header, count: entries.length, checksum: hash.digest('hex') })}\n`);
    await finished(out);
    await rename(temp, path);
  } catch {
    // A cache that cannot be written only costs the next run its speed.
    await rm(temp, { force: true }).catch(() => undefined);
  }
}

/** Bytes, lines and entries of the complete lines read so far. */
type Progress = { readonly offset: number; readonly lines: number; readonly entries: number };

/** Parses `file` from `from` on into `entries`; complete lines advance the progress, an unterminated tail does not. */
async function parseFrom<T>(file: string, parser: LineParser<T>, from: Progress, entries: T[]): Promise<Progress> {
  let progress = from;
  await scanFileLines(
    file,
    (raw, text) => {
      const line: FileLine = {
        number: raw.number,
        text,
        terminated: raw.terminated,
        endOffset: raw.endOffset,
      };
      const entry = parser.parse(line);
      if (entry !== null) entries.push(entry);
      if (line.terminated) progress = { offset: line.endOffset, lines: line.number, entries: entries.length };
    },
    { offset: from.offset, linesBefore: from.lines },
  );
  return progress;
}

/**
 * The entries of every line of `file`, handed to `use` as each line is parsed (no cache): a caller
 * that consumes them as they come never holds a whole file's entries. A read error rejects after
 * the entries read so far were handed over.
 */
export async function forEachLineEntry<T>(file: string, parser: LineParser<T>, use: (entry: T) => void): Promise<void> {
  await scanFileLines(file, (raw, text) => {
    const entry = parser.parse({ number: raw.number, text, terminated: raw.terminated, endOffset: raw.endOffset });
    if (entry !== null) use(entry);
  });
}

/**
 * Appends the entries of every line of `file` to `entries`, in line order, through the cache when
 * there is one; resolves to how the cache served the file. Entries of an unterminated last line are
 * always parsed fresh and never stored. A read error rejects with the entries read so far appended
 * (the caller reports it); nothing is cached for a file that could not be read whole.
 */
export async function readLinesCached<T>(
  file: string,
  parser: LineParser<T>,
  cache: ParseCache | null,
  entries: T[],
): Promise<CacheOutcome> {
  const base = entries.length;
  const start: Progress = { offset: 0, lines: 0, entries: base };
  if (cache === null) {
    await parseFrom(file, parser, start, entries);
    return 'disabled';
  }
  const info = await stat(file);
  const path = entryPath(cache, parser.key, file);
  const loaded = await loadEntry<T>(path, cache, parser.key, file);
  let outcome: CacheOutcome = loaded === null ? 'miss' : 'stale';
  let from = start;
  if (loaded !== null) {
    const h = loaded.header;
    const sameFile = h.dev === info.dev && h.ino === info.ino;
    const unchanged =
      sameFile && h.size === info.size && h.mtimeMs === info.mtimeMs && h.mtimeMs < h.writtenAtMs - RACY_MS;
    const grown = !unchanged && sameFile && info.size > h.size && (await tailHash(file, h.offset)) === h.tail;
    if (unchanged || grown) {
      for (const entry of loaded.entries) entries.push(entry);
      from = { offset: h.offset, lines: h.lines, entries: entries.length };
      outcome = unchanged ? 'hit' : 'grown';
    }
  }
  // Bytes after the cached offset (an unterminated tail, or what was appended) are always parsed.
  const progress = await parseFrom(file, parser, from, entries);
  if (outcome === 'hit' && progress.offset === from.offset) return outcome;
  const header = {
    fingerprint: cache.fingerprint,
    key: parser.key,
    file,
    dev: info.dev,
    ino: info.ino,
    size: info.size,
    mtimeMs: info.mtimeMs,
    offset: progress.offset,
    lines: progress.lines,
    tail: await tailHash(file, progress.offset),
    writtenAtMs: cache.nowMs,
  };
  await writeEntry(path, header, entries.slice(base, progress.entries));
  return outcome;
}

/** A file a whole-value entry depends on, as it was when the value was computed. */
type FileStamp = {
  readonly file: string;
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
};

type ValueHeader = {
  readonly fingerprint: string;
  readonly key: string;
  readonly files: readonly FileStamp[];
  readonly writtenAtMs: number;
  /** sha256 of the value line as written. */
  readonly checksum: string;
};

function stampOf(file: string): FileStamp | null {
  try {
    const info = statSync(file);
    return { file, dev: info.dev, ino: info.ino, size: info.size, mtimeMs: info.mtimeMs };
  } catch {
    return null;
  }
}

/**
 * A value computed from whole files (a session built from its transcripts), cached under `key`:
 * served only while every file has the identity, size and mtime it had when the value was
 * computed, and was not modified within `RACY_MS` of that (the trust rules above), and the
 * `derived` files (the line entries it was built through) are as they were; null otherwise
 * (missing, stale, corrupt, from other code). Reads are synchronous: a warm run is a stat per file
 * and one read per value.
 */
export function readValueCached<T>(
  cache: ParseCache,
  key: string,
  files: readonly string[],
  derived: readonly string[] = [],
): T | null {
  try {
    const text = readFileSync(entryPath(cache, key, files.join('\0')), 'utf8');
    const split = text.indexOf('\n');
    if (split === -1 || !text.endsWith('\n')) return null;
    const header = JSON.parse(text.slice(0, split)) as ValueHeader;
    const body = text.slice(split + 1, -1);
    const all = [...files, ...derived];
    if (header.fingerprint !== cache.fingerprint || header.key !== key || header.files.length !== all.length)
      return null;
    for (const [i, was] of header.files.entries()) {
      const now = stampOf(all[i] ?? '');
      if (
        now === null ||
        now.file !== was.file ||
        now.dev !== was.dev ||
        now.ino !== was.ino ||
        now.size !== was.size ||
        now.mtimeMs !== was.mtimeMs ||
        // Racy only for the logs: the derived entries were written by the run that wrote this one.
        (i < files.length && !(was.mtimeMs < header.writtenAtMs - RACY_MS))
      )
        return null;
    }
    if (createHash('sha256').update(body).digest('hex') !== header.checksum) return null;
    return JSON.parse(body) as T;
  } catch {
    return null;
  }
}

/**
 * Stores a value computed from `files`, stamped with the files as they are now: call it only with
 * files that were read whole and not since changed (a later change makes the stamp differ). Atomic
 * (temp + rename); a cache that cannot be written only costs the next run its speed.
 */
export async function writeValueCached(
  cache: ParseCache,
  key: string,
  files: readonly string[],
  stampsBefore: readonly FileStampToken[],
  derived: readonly string[],
  value: unknown,
): Promise<void> {
  const stamps: FileStamp[] = [];
  for (const [i, file] of files.entries()) {
    const stamp = stampOf(file);
    const before = stampsBefore[i] as FileStamp | null | undefined;
    // A file that changed while it was read: the value may mix its versions; not stored.
    if (stamp === null || before === null || before === undefined || JSON.stringify(stamp) !== JSON.stringify(before))
      return;
    stamps.push(stamp);
  }
  // Cache entries the value was read through: a damaged or rewritten one makes the value stale too.
  for (const file of derived) {
    const stamp = stampOf(file);
    if (stamp === null) return;
    stamps.push(stamp);
  }
  const body = JSON.stringify(value);
  const header: ValueHeader = {
    fingerprint: cache.fingerprint,
    key,
    files: stamps,
    writtenAtMs: cache.nowMs,
    checksum: createHash('sha256').update(body).digest('hex'),
  };
  const path = entryPath(cache, key, files.join('\0'));
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(header)}\n${body}\n`);
    await rename(temp, path);
  } catch {
    await rm(temp, { force: true }).catch(() => undefined);
  }
}

/** The entry file of `file`'s lines under `key` (what `readLinesCached` reads and writes). */
export function lineEntryPath(cache: ParseCache, key: string, file: string): string {
  return entryPath(cache, key, file);
}

/** Opaque: the stamps of files taken before they are read (`stampFiles`), for `writeValueCached`. */
export type FileStampToken = { readonly __stamp: never } | null;

/** The files' stamps now, taken before reading them. */
export function stampFiles(files: readonly string[]): FileStampToken[] {
  return files.map((file) => stampOf(file) as unknown as FileStampToken);
}
