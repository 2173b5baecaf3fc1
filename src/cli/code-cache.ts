/**
 * A script compiled through a V8 code cache kept in a file: the CLI's core (`core-loader.ts`) costs
 * ~25–35 ms of every command to parse and compile (551 KB, and the functions a run calls compiled
 * as they are first called); with the cache V8 deserializes what an earlier run compiled.
 *
 * The cache file is never trusted beyond what it proves:
 * - it is used only for the script it was made from: its key names the script's build identity
 *   (a hash the build computed of its bytes), the script file's size, mtime and inode, and this
 *   Node's version and architecture. V8 itself compares only the source's LENGTH: given the cache
 *   of another script of the same length it runs the OLD code;
 * - its data must have the length and the check written in its header: V8 verifies its own
 *   checksum only in debug builds, and a damaged cache must never reach it;
 * - V8 may still reject it (other flags): then the script is compiled from its source.
 * - it is code this process runs: a file that is not the user's own, or that others may write, is
 *   not used (written with mode 0600);
 * A cache that fails any of these is written again after the run; one that cannot be read or
 * written only costs the speed. It is written to a temp file renamed over it (atomic): a run killed
 * mid-write leaves the previous file or none.
 */
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import { join } from 'node:path';
import { Script } from 'node:vm';
import * as zlib from 'node:zlib';

const MAGIC = 'cachecost-code-cache/1';
/** Temp files of a writer killed before its rename are removed when older than this. */
const STALE_TEMP_MS = 10 * 60_000;

type Header = { readonly magic: string; readonly key: string; readonly bytes: number; readonly check: string };

type Crc32 = (data: Uint8Array, value?: number) => number;
/** zlib's CRC-32 (from Node 20.15; `byte-check.ts` uses it too, so the core loads zlib either way). */
const crc32 = (zlib as { crc32?: Crc32 }).crc32;

/**
 * The check kept in the header: the CRC-32 of the data (native: ~0.3 ms over the core's ~550 KB,
 * where `wordCheck`, run once per process in the interpreter, took 4–6 ms of every command), or
 * `wordCheck` on a Node without it. The algorithm is part of the value, so a cache checked by one
 * is never taken as checked by the other (it is rebuilt).
 */
export function codeCheck(bytes: Uint8Array, crc: Crc32 | null = crc32 ?? null): string {
  return crc === null ? `word:${wordCheck(bytes)}` : `crc32:${(crc(bytes) >>> 0).toString(16).padStart(8, '0')}`;
}

/**
 * A 64-bit check of `bytes` (hex): two 32-bit multiply-rotate hashes over their 32-bit
 * little-endian words, then the remaining bytes and the length. A check against damage (a torn or
 * flipped write), not against an adversary: changing one word always changes both halves.
 */
export function wordCheck(bytes: Uint8Array): string {
  const whole = bytes.length >>> 2;
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Uint8Array.from(bytes);
  const words = new Uint32Array(aligned.buffer, aligned.byteOffset, whole);
  const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  let a = 0x9747b28c;
  let b = 0x85ebca6b;
  for (let i = 0; i < whole; i += 1) {
    let k = littleEndian ? (words[i] ?? 0) : readLE(bytes, i * 4);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    a ^= k;
    a = (a << 13) | (a >>> 19);
    a = (Math.imul(a, 5) + 0xe6546b64) | 0;
    b = Math.imul(b ^ k, 0x01000193);
    b = (b << 11) | (b >>> 21);
  }
  for (let i = whole * 4; i < bytes.length; i += 1) {
    a = Math.imul(a ^ (bytes[i] ?? 0), 0x5bd1e995);
    b = Math.imul(b ^ (bytes[i] ?? 0), 0x01000193);
  }
  a = fmix(a ^ bytes.length);
  b = fmix(b ^ Math.floor(bytes.length / 0x1_0000_0000) ^ bytes.length);
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

function readLE(bytes: Uint8Array, at: number): number {
  return (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8) | ((bytes[at + 2] ?? 0) << 16) | ((bytes[at + 3] ?? 0) << 24);
}

/** MurmurHash3's finalizer: every input bit reaches every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * The cache's bytes, when the file is this user's and only this user can write it: the cache is
 * code that this process runs, so a file someone else could have written (a cache directory shared
 * through `$CACHECOST_CACHE_DIR`) is not used. Checked on the open file (no race with a rename).
 */
function readOwnFile(file: string): Buffer | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const info = fstatSync(fd);
    const uid = process.getuid?.();
    if (uid !== undefined && (info.uid !== uid || (info.mode & 0o022) !== 0)) return null;
    return readFileSync(fd);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The cache's data for `key`, or null when the file is missing, not the user's own, cut, damaged or for another key. */
function readCache(file: string, key: string): Buffer | null {
  const bytes = readOwnFile(file);
  if (bytes === null) return null;
  const newline = bytes.indexOf(10);
  if (newline < 0) return null;
  const line = bytes.toString('utf8', 0, newline);
  let header: Partial<Header>;
  try {
    header = JSON.parse(line) as Partial<Header>;
  } catch {
    return null;
  }
  if (header.magic !== MAGIC || header.key !== key) return null;
  if (typeof header.bytes !== 'number' || typeof header.check !== 'string') return null;
  // The header line exactly as `writeCache` writes it: a line that parses alike but differs (its
  // padding changed) was not written so, and is not trusted either.
  if (line !== headerLine({ magic: MAGIC, key, bytes: header.bytes, check: header.check })) return null;
  const data = bytes.subarray(newline + 1);
  if (data.length !== header.bytes || codeCheck(data) !== header.check) return null;
  return data;
}

/** The header line of a cache file, without its newline: padded so that the data starts 8-aligned (checked in place, not copied). */
function headerLine(header: Header): string {
  const line = JSON.stringify({ magic: header.magic, key: header.key, bytes: header.bytes, check: header.check });
  return line + ' '.repeat((8 - ((Buffer.byteLength(line) + 1) % 8)) % 8);
}

/** Writes `data` as the cache for `key` (temp + rename); a cache that cannot be written is left out. */
function writeCache(file: string, key: string, data: Buffer): void {
  const dir = join(file, '..');
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    const header: Header = { magic: MAGIC, key, bytes: data.length, check: codeCheck(data) };
    writeFileSync(temp, Buffer.concat([Buffer.from(`${headerLine(header)}\n`), data]), { mode: 0o600 });
    renameSync(temp, file);
    sweepTemps(dir);
  } catch {
    rmSync(temp, { force: true });
  }
}

/** Removes temp files that writers killed before their rename left behind. */
function sweepTemps(dir: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.tmp')) continue;
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs > STALE_TEMP_MS) rmSync(path, { force: true });
    } catch {
      // Gone meanwhile.
    }
  }
}

/** A script run through the cache: its completion value, and what the caller does once it has run. */
export type CachedRun = {
  readonly value: unknown;
  /** Whether the cache was used (false: compiled from source). */
  readonly fromCache: boolean;
  /**
   * Writes the cache when it was not used, from what V8 has compiled by then (call it late: the
   * functions the run called are in it); does nothing otherwise, or when `cacheFile` is null.
   */
  readonly save: () => void;
};

/**
 * The script's text. The core is ASCII (the build checks it): its bytes are its characters, which a
 * Latin-1 read copies straight into a one-byte string, ≈ 2 ms of a run less than decoding UTF-8
 * (600 KB); a file that is not ASCII is decoded as UTF-8.
 */
function scriptSource(scriptFile: string): string {
  const bytes = readFileSync(scriptFile);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/**
 * Compiles and runs the script file `scriptFile` (whose build identity is `buildId`) in this
 * context, through the code cache `cacheFile` (null: no cache).
 */
export function runCachedScript(scriptFile: string, buildId: string, cacheFile: string | null): CachedRun {
  const source = scriptSource(scriptFile);
  let key: string | null = null;
  if (cacheFile !== null)
    try {
      const info = statSync(scriptFile);
      key = [buildId, info.size, info.mtimeMs, info.ino, process.version, process.arch].join(' ');
    } catch {
      key = null;
    }
  const cachedData = cacheFile !== null && key !== null ? (readCache(cacheFile, key) ?? undefined) : undefined;
  const script = new Script(source, { filename: scriptFile, ...(cachedData === undefined ? {} : { cachedData }) });
  const fromCache = cachedData !== undefined && script.cachedDataRejected !== true;
  const value: unknown = script.runInThisContext();
  return {
    value,
    fromCache,
    save: () => {
      if (fromCache || cacheFile === null || key === null) return;
      try {
        writeCache(cacheFile, key, script.createCachedData());
      } catch {
        // A cache that cannot be made only costs the next run its speed.
      }
    },
  };
}
