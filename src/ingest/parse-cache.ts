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
 *   less than `racyMs` before the run that wrote the entry started (a same-size rewrite within the
 *   mtime's resolution would look unchanged), then the file is re-read whole.
 * - Same identity and larger → the bytes just before the cached offset must check as recorded (the
 *   file was appended to, not rewritten; CRC-32 of up to 4 KB); then only the bytes after the offset are parsed.
 * - Anything else (smaller, other inode, changed mtime with the same size, tail mismatch) → whole re-read.
 * - An entry from another cachecost build (`codeFingerprint`: the package version and the code
 *   that parses), an unreadable or corrupt one (a CRC-32 covers every byte), or a temp
 *   file left by a run killed mid-write (never renamed into place) is ignored and rewritten.
 * Entries are written to a temp file and renamed (atomic); a cache that cannot be written is skipped.
 *
 * What is stored: the entries of a file written to within `RECENT_MS` before the run, or of one
 * that has an entry already (kept up to date). A file older than that, read for the first time, is
 * not stored line by line: its session is kept whole in the run pack (`run-pack.ts`), which serves
 * every re-run while the file is unchanged, and a transcript left alone for a day rarely grows (a
 * resumed Claude Code session is written to a new file). Should one grow, that run reads it whole
 * once; written to then, it is stored from that run on. A first run over months of logs thus
 * writes a file per recent transcript instead of one per transcript (on 269 MB of transcripts
 * dated a month back: no entry instead of 577 files and 53 MB, and the run as fast as `--no-cache`).
 */
import {
  closeSync,
  type Dirent,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Check, CHECK_ALGORITHM, checker, checkOf, nameHash, sha256 } from './byte-check.js';
import { type FileLine, type LineStart, type RawLine, scanFileLines } from './lines.js';

/** How long after its last write a file read for the first time is still stored line by line. */
export const RECENT_MS = 24 * 60 * 60 * 1000;

/** An open cache: its directory, the fingerprint of the code that writes its entries, the run's clock. */
export type ParseCache = { readonly dir: string; readonly fingerprint: string; readonly nowMs: number };

/** Why an entry was or was not used (tests and `--verbose` statistics). */
export type CacheOutcome = 'disabled' | 'hit' | 'grown' | 'miss' | 'stale';

/**
 * How a cache entry's lines are stored: a batch of entries as bytes, and back (the same entries, in
 * order). Without one, a batch is stored as JSON (entries must then survive a JSON round trip unchanged).
 */
export type EntryCodec<T> = {
  readonly encode: (entries: readonly T[]) => Uint8Array;
  /** Hands each entry of a batch `encode` wrote to `use`; throws on bytes it did not write. */
  readonly decode: (bytes: Buffer, use: (entry: T) => void) => void;
};

/** How one adapter turns lines into cacheable entries. */
export type LineParser<T> = {
  /** Format, content mode and entry version, e.g. `claude-code/sizes/1`. */
  readonly key: string;
  /** The entry of one line, or null when the line leaves nothing (blank, ignored). */
  readonly parse: (line: FileLine) => T | null;
  /** `parse` of the line's bytes, when the parser decodes only what it reads: lines are then not decoded first. */
  readonly parseRaw?: ((line: RawLine) => T | null) | undefined;
  /** How its entries are stored (default: JSON). */
  readonly codec?: EntryCodec<T> | undefined;
};

/** A batch stored as the JSON of its entries' array. */
function jsonCodec<T>(): EntryCodec<T> {
  return {
    encode: (entries) => Buffer.from(JSON.stringify(entries)),
    decode: (bytes, use) => {
      const entries: unknown = JSON.parse(bytes.toString('utf8'));
      if (!Array.isArray(entries)) throw new Error('parse cache: a batch that is not an array');
      for (const entry of entries as T[]) use(entry);
    },
  };
}

const LAYOUT = 'parsed-v1';
/**
 * How long before a run's start a file must have been modified for what the run reads of it to be
 * trusted later by its stamp: a rewrite of the same size within the mtime's resolution would look
 * unchanged, so the window must exceed that resolution. An mtime on a whole second (or two) comes
 * from a file system that keeps no finer (FAT, HFS+, ext4 with small inodes, many network mounts):
 * 2 s. A finer mtime comes from one that keeps it to the nanosecond or the 10 ms (ext4, XFS, btrfs,
 * APFS, NTFS, exFAT), whose timestamps lag the clock by at most a scheduler tick (≤ 10 ms): 100 ms.
 * (On such a system a whole-second mtime happens once in a thousand files; it only costs a re-read.)
 */
export function racyMs(mtimeMs: number): number {
  return Number.isInteger(mtimeMs / 1000) ? 2_000 : 100;
}
const TAIL_BYTES = 4_096;
const STALE_TEMP_MS = 10 * 60_000;
/** Entries per stored batch: a cache file is encoded and written a batch at a time (a 1 GB log's entries are never one buffer). */
const BATCH_ENTRIES = 8_192;
/** Batches beyond a full file's count that growths may add before a file's entries are encoded whole again. */
const MAX_EXTRA_BATCHES = 32;

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
  /** The check (`algorithm`) of up to `TAIL_BYTES` bytes before `offset`. */
  readonly tail: Check;
  readonly writtenAtMs: number;
  readonly count: number;
  /** `CHECK_ALGORITHM` when written: how `checksum` was taken. */
  readonly algorithm: string;
  /** The check of every byte before the header (`byte-check.ts`). */
  readonly checksum: Check;
};

let fingerprintMemo: string | null = null;

const CODE_FILE = /\.(js|mjs|cjs|ts)$/;

/**
 * Code files under `root`/`dir` (recursively, `.d.ts` and maps excepted), sorted, as paths from
 * `root` (joined by the platform's separator, as `path.relative` gives them); none when it cannot be listed.
 */
function codeFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  let entries: Dirent[];
  try {
    entries = readdirSync(`${root}${sep}${dir}`, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    const path = dir === '' ? entry.name : `${dir}${sep}${entry.name}`;
    if (entry.isDirectory()) out.push(...codeFiles(root, path));
    else if (CODE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

/**
 * The package root (the nearest directory above `dir` holding a package.json) and the code root
 * below it that holds `dir` (`dist`, `src`); null when there is none.
 */
function codeRootOf(dir: string): { readonly packageJson: string; readonly codeRoot: string } | null {
  let child = dir;
  for (let parent = dirname(dir); parent !== child; child = parent, parent = dirname(parent)) {
    const packageJson = join(parent, 'package.json');
    if (existsSync(packageJson)) return { packageJson, codeRoot: child };
  }
  return null;
}

/** The real directory of the entry script (`npx` runs it through a link); null when there is none. */
function entryDirectory(entryScript: string | undefined): string | null {
  if (entryScript === undefined) return null;
  try {
    return dirname(realpathSync(entryScript));
  } catch {
    return null;
  }
}

/** What the fingerprint hashes: the package file, and the code files in order, as paths from `codeRoot`. */
type FingerprintInputs = { readonly packageJson: string; readonly codeRoot: string; readonly files: readonly string[] };

function fingerprintInputs(entryScript: string | undefined): FingerprintInputs {
  const ingestDir = dirname(fileURLToPath(import.meta.url));
  const roots = codeRootOf(ingestDir);
  if (roots === null) throw new Error('cachecost: cannot find the package of the running code');
  const { codeRoot } = roots;
  const files = codeFiles(codeRoot, relative(codeRoot, ingestDir));
  if (files.length === 0) throw new Error('cachecost: cannot list the ingest code');
  const entryDir = entryDirectory(entryScript);
  const fromRoot = entryDir === null ? '..' : relative(codeRoot, entryDir);
  if (entryDir !== null && entryDir !== ingestDir && !fromRoot.startsWith('..') && !isAbsolute(fromRoot))
    files.push(...codeFiles(codeRoot, fromRoot));
  return { packageJson: roots.packageJson, codeRoot, files };
}

/**
 * The file the build writes beside the bundled entry (`scripts/bundle-cli.mjs`): the fingerprint
 * of the code as built, with what it was computed from (the package file's text, every code file's
 * path and size), so that a run reads one small file and stats the code instead of reading and
 * hashing ~3 MB of it (~35 ms, a tenth of a re-run).
 */
export const FINGERPRINT_MANIFEST = 'code-fingerprint.json';

type FingerprintManifest = {
  /** The package file's text (compared as it is: a run hashes nothing to check the manifest). */
  readonly packageJson: string;
  readonly files: readonly (readonly [path: string, bytes: number])[];
  readonly fingerprint: string;
};

/** The manifest of the code as it is now (the build writes it as `FINGERPRINT_MANIFEST` beside `entryScript`). */
export function fingerprintManifest(entryScript: string | undefined): FingerprintManifest {
  const inputs = fingerprintInputs(entryScript);
  const packageJson = readFileSync(inputs.packageJson);
  const hash = sha256().update(packageJson);
  const files: (readonly [string, number])[] = [];
  for (const path of inputs.files) {
    const bytes = readFileSync(`${inputs.codeRoot}${sep}${path}`);
    hash.update(`\0${path}\0`);
    hash.update(bytes);
    files.push([path, bytes.length]);
  }
  return { packageJson: packageJson.toString('utf8'), files, fingerprint: hash.digest('hex') };
}

/**
 * The build's manifest, when the code is still the code it describes: the same package file
 * (text), the same code files (paths, in order) of the same sizes. A file edited after the build
 * keeping its size would slip through: the manifest is for installed builds; `npm run build`
 * writes it again, and without it the code is hashed (`fingerprintManifest`).
 */
function builtFingerprint(entryScript: string | undefined): string | null {
  const entryDir = entryDirectory(entryScript);
  if (entryDir === null) return null;
  let manifest: FingerprintManifest;
  try {
    manifest = JSON.parse(readFileSync(join(entryDir, FINGERPRINT_MANIFEST), 'utf8')) as FingerprintManifest;
  } catch {
    return null;
  }
  const inputs = fingerprintInputs(entryScript);
  if (typeof manifest.fingerprint !== 'string' || !Array.isArray(manifest.files)) return null;
  if (manifest.files.length !== inputs.files.length) return null;
  if (readFileSync(inputs.packageJson, 'utf8') !== manifest.packageJson) return null;
  for (let i = 0; i < inputs.files.length; i += 1) {
    const path = inputs.files[i];
    const [builtPath, bytes] = manifest.files[i] ?? [];
    if (path !== builtPath || statSync(`${inputs.codeRoot}${sep}${path}`).size !== bytes) return null;
  }
  return manifest.fingerprint;
}

/**
 * sha256 of the code that writes the cache's entries, so that any change to it invalidates every
 * entry: the package.json (its version), every source file of `ingest/` beside this module (the
 * parsers and builders), and, when the running command's entry script lies in the same code root,
 * every code file of the entry's directory (a bundled CLI: the entry and its chunks hold the
 * parsers it actually runs, whatever the files beside this module say). Taken from the build's
 * manifest when it still describes the code (`builtFingerprint`), else read and hashed; once per
 * process. Throws when the package cannot be found (then the cache is not used).
 */
export function codeFingerprint(entryScript: string | undefined = process.argv[1]): string {
  fingerprintMemo ??= builtFingerprint(entryScript) ?? fingerprintManifest(entryScript).fingerprint;
  return fingerprintMemo;
}

/** Names of the layout before files were named by `nameHash` (by sha256). */
const OLD_NAME = /^(run-)?[0-9a-f]{40}\.(pack|entries)$/;

async function sweepStale(dir: string, nowMs: number): Promise<void> {
  for (const name of await readdir(dir)) {
    // Entries of the first layout (JSON lines), and entries and packs named by sha256 (now named by
    // a hash that needs no crypto module): never read again, removed once.
    if (name.endsWith('.jsonl') || OLD_NAME.test(name)) {
      await rm(join(dir, name), { force: true });
      continue;
    }
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
  options: {
    readonly mustExist: string | null;
    readonly nowMs: number;
    /**
     * Told why a directory that should hold the cache cannot (not a directory, no permission):
     * the run goes on without it. Not called when `mustExist` is missing (no home, no cache).
     */
    readonly onUnusable?: (reason: string) => void;
  },
): Promise<ParseCache | null> {
  if (options.mustExist !== null) {
    try {
      if (!(await stat(options.mustExist)).isDirectory()) return null;
    } catch {
      return null;
    }
  }
  try {
    const root = join(dir, LAYOUT);
    await mkdir(root, { recursive: true });
    await sweepStale(root, options.nowMs);
    return { dir: root, fingerprint: codeFingerprint(), nowMs: options.nowMs };
  } catch (error) {
    options.onUnusable?.(unusableReason(error));
    return null;
  }
}

/** An `fs` failure as a short reason: its code and what it means (`EACCES: permission denied`), else its message. */
function unusableReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // Node's messages are `CODE: what, syscall 'path'`: the path is said by the caller.
  const what = /^[A-Z]+: ([^,]+)/.exec(message)?.[1];
  return typeof code === 'string' && what !== undefined ? `${code}: ${what}` : message;
}

function entryPath(cache: ParseCache, key: string, file: string): string {
  return join(cache.dir, `${nameHash(`${key}\0${file}`)}.entries`);
}

/** Whether the cache has an entry for `file` under the parser's `key` (whether it can be trusted is decided on reading). */
export function hasCacheEntry(cache: ParseCache, key: string, file: string): boolean {
  return existsSync(entryPath(cache, key, file));
}

/**
 * The entries and header of a cache file; null when missing, corrupt or written by other code.
 * A file: the batches (each its byte length as a 32-bit little-endian number, then its bytes as
 * the parser's codec wrote them), the header's JSON, the header's byte length (32 bits); the
 * header checks every byte before it.
 */
function loadEntry<T>(
  path: string,
  cache: ParseCache,
  parser: LineParser<T>,
  file: string,
): { header: Header; entries: T[]; batches: Buffer; batchCount: number } | null {
  try {
    const bytes = readFileSync(path);
    if (bytes.length < 4) return null;
    const headerBytes = bytes.readUInt32LE(bytes.length - 4);
    const end = bytes.length - 4 - headerBytes;
    if (end < 0) return null;
    const header = JSON.parse(bytes.toString('utf8', end, bytes.length - 4)) as Header;
    if (
      header.fingerprint !== cache.fingerprint ||
      header.key !== parser.key ||
      header.file !== file ||
      header.algorithm !== CHECK_ALGORITHM ||
      checkOf(bytes.subarray(0, end), header.algorithm) !== header.checksum
    )
      return null;
    const codec = parser.codec ?? jsonCodec<T>();
    const entries: T[] = [];
    const push = (entry: T): void => {
      entries.push(entry);
    };
    let at = 0;
    let batchCount = 0;
    while (at < end) {
      if (at + 4 > end) return null;
      const length = bytes.readUInt32LE(at);
      if (at + 4 + length > end) return null;
      codec.decode(bytes.subarray(at + 4, at + 4 + length), push);
      at += 4 + length;
      batchCount += 1;
    }
    return entries.length === header.count ? { header, entries, batches: bytes.subarray(0, end), batchCount } : null;
  } catch {
    return null;
  }
}

/**
 * The cache's own reads and writes are synchronous: a file's entries are read and written between
 * synchronous parses anyway, and on a first run (every file missed and written) the thread-pool
 * round trips of a dozen asynchronous calls per file left the thread idle for seconds.
 */
function tailCheck(file: string, offset: number, algorithm: string): Check | null {
  const start = Math.max(0, offset - TAIL_BYTES);
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(offset - start);
    const bytesRead = readSync(fd, buffer, 0, buffer.length, start);
    return checkOf(buffer.subarray(0, bytesRead), algorithm);
  } finally {
    closeSync(fd);
  }
}

/** Writes all of `bytes` at the end of what `fd` has written. */
function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

/**
 * Writes an entry file: `kept` (batches as a loaded entry held them, checked then, and how many
 * entries they hold) copied as they are, then `entries` encoded in new batches.
 */
function writeEntry<T>(
  path: string,
  header: Omit<Header, 'checksum' | 'count' | 'algorithm'>,
  kept: { readonly batches: Buffer; readonly count: number } | null,
  entries: readonly T[],
  codec: EntryCodec<T>,
): void {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    const fd = openSync(temp, 'w');
    try {
      const check = checker(CHECK_ALGORITHM);
      const lengthOf = (bytes: Uint8Array): Buffer => {
        const length = Buffer.alloc(4);
        length.writeUInt32LE(bytes.length);
        return length;
      };
      if (kept !== null) {
        check.update(kept.batches);
        writeAll(fd, kept.batches);
      }
      for (let from = 0; from < entries.length; from += BATCH_ENTRIES) {
        const batch = codec.encode(entries.slice(from, from + BATCH_ENTRIES));
        const length = lengthOf(batch);
        check.update(length);
        check.update(batch);
        writeAll(fd, length);
        writeAll(fd, batch);
      }
      const checksum = check.value() ?? 0;
      const json = Buffer.from(
        JSON.stringify({ ...header, count: (kept?.count ?? 0) + entries.length, algorithm: CHECK_ALGORITHM, checksum }),
      );
      writeAll(fd, json);
      writeAll(fd, lengthOf(json));
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch {
    // A cache that cannot be written only costs the next run its speed.
    rmSync(temp, { force: true });
  }
}

/** Bytes, lines and entries of the complete lines read so far. */
type Progress = { readonly offset: number; readonly lines: number; readonly entries: number };

/**
 * Runs every line of `file` from `from` on through `parser`, handing `onLine` its entry (null when
 * the line leaves none): from the line's bytes when the parser reads them itself (lines are then
 * not decoded first), else from its decoded text.
 */
async function scanEntries<T>(
  file: string,
  parser: LineParser<T>,
  from: LineStart | undefined,
  onLine: (entry: T | null, line: RawLine) => void,
): Promise<void> {
  const parseRaw = parser.parseRaw;
  if (parseRaw !== undefined) {
    await scanFileLines(file, (raw) => onLine(parseRaw(raw), raw), from, { decode: false });
    return;
  }
  await scanFileLines(
    file,
    (raw, text) =>
      onLine(parser.parse({ number: raw.number, text, terminated: raw.terminated, endOffset: raw.endOffset }), raw),
    from,
  );
}

/** Parses `file` from `from` on into `entries`; complete lines advance the progress, an unterminated tail does not. */
async function parseFrom<T>(file: string, parser: LineParser<T>, from: Progress, entries: T[]): Promise<Progress> {
  let progress = from;
  await scanEntries(file, parser, { offset: from.offset, linesBefore: from.lines }, (entry, raw) => {
    if (entry !== null) entries.push(entry);
    if (raw.terminated) progress = { offset: raw.endOffset, lines: raw.number, entries: entries.length };
  });
  return progress;
}

/**
 * The entries of every line of `file`, handed to `use` as each line is parsed (no cache): a caller
 * that consumes them as they come never holds a whole file's entries. A read error rejects after
 * the entries read so far were handed over.
 */
export async function forEachLineEntry<T>(file: string, parser: LineParser<T>, use: (entry: T) => void): Promise<void> {
  await scanEntries(file, parser, undefined, (entry) => {
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
  const info = statSync(file);
  const path = entryPath(cache, parser.key, file);
  const loaded = loadEntry(path, cache, parser, file);
  let outcome: CacheOutcome = loaded === null ? 'miss' : 'stale';
  let from = start;
  let kept: { readonly batches: Buffer; readonly count: number } | null = null;
  if (loaded !== null) {
    const h = loaded.header;
    const sameFile = h.dev === info.dev && h.ino === info.ino;
    const unchanged =
      sameFile && h.size === info.size && h.mtimeMs === info.mtimeMs && h.mtimeMs < h.writtenAtMs - racyMs(h.mtimeMs);
    const grown = !unchanged && sameFile && info.size > h.size && tailCheck(file, h.offset, h.algorithm) === h.tail;
    if (unchanged || grown) {
      for (const entry of loaded.entries) entries.push(entry);
      from = { offset: h.offset, lines: h.lines, entries: entries.length };
      outcome = unchanged ? 'hit' : 'grown';
      // Written again as they are, with the new lines' entries in batches after them (a grown
      // file's entries are not encoded again), until growths have left too many small batches.
      if (loaded.batchCount <= Math.ceil(loaded.entries.length / BATCH_ENTRIES) + MAX_EXTRA_BATCHES)
        kept = { batches: loaded.batches, count: loaded.entries.length };
    }
  }
  // Bytes after the cached offset (an unterminated tail, or what was appended) are always parsed.
  const progress = await parseFrom(file, parser, from, entries);
  if (outcome === 'hit' && progress.offset === from.offset) return outcome;
  // An old file without an entry is left to the run pack (module comment).
  if (loaded === null && info.mtimeMs < cache.nowMs - RECENT_MS) return outcome;
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
    tail: tailCheck(file, progress.offset, CHECK_ALGORITHM) ?? '',
    writtenAtMs: cache.nowMs,
  };
  writeEntry(
    path,
    header,
    kept,
    entries.slice(base + (kept?.count ?? 0), progress.entries),
    parser.codec ?? jsonCodec<T>(),
  );
  return outcome;
}
