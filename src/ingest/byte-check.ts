/**
 * The check that the caches (`run-pack.ts`, `parse-cache.ts`) keep of the bytes they write, so that
 * a damaged or cut file is rebuilt, never trusted: CRC-32 (cheap, and what a torn or flipped write
 * needs), or sha256 where this Node's zlib has no crc32. The algorithm is stored with each file: a
 * file checked by one is not trusted by a Node that only has the other.
 */
import type { Hash } from 'node:crypto';
import { createRequire } from 'node:module';
import * as zlib from 'node:zlib';

let crypto: typeof import('node:crypto') | null = null;

/**
 * A sha256 hash, from `node:crypto` loaded on first use: a re-run that checks by CRC-32 and reads
 * no line entries hashes nothing, and loading the module costs ~7 ms of every start.
 */
export function sha256(): Hash {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return crypto.createHash('sha256');
}

/**
 * A name for a cache file from the text it is the file of (16 hex digits): two 32-bit FNV-1a-style
 * hashes of the text's UTF-16 code units, with other seeds and multipliers. A name, never a check:
 * each file holds the key it was written for, and a file of another key is not trusted (a
 * collision costs a re-read). No `node:crypto` (~7 ms to load) on the paths that name files.
 */
export function nameHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** The check of some bytes: their CRC-32, or their sha256 in hex. */
export type Check = number | string;

type Crc32 = (data: Uint8Array, value?: number) => number;
// zlib.crc32 exists from Node 20.15.
const crc32 = (zlib as { crc32?: Crc32 }).crc32;

/** The algorithm this Node checks with. */
export const CHECK_ALGORITHM: string = crc32 === undefined ? 'sha256' : 'crc32';

/** A check taken over bytes handed in pieces: `value` is the check of their concatenation (null when `algorithm` is not available here). */
export type Checker = { readonly update: (bytes: Uint8Array) => void; readonly value: () => Check | null };

export function checker(algorithm: string): Checker {
  if (algorithm === 'crc32' && crc32 !== undefined) {
    const crc = crc32;
    let value = 0;
    return { update: (bytes) => void (value = crc(bytes, value)), value: () => value };
  }
  if (algorithm === 'sha256') {
    const hash = sha256();
    return { update: (bytes) => void hash.update(bytes), value: () => hash.digest('hex') };
  }
  return { update: () => undefined, value: () => null };
}

/** The check of `bytes` by `algorithm`; null when it is not available here. */
export function checkOf(bytes: Uint8Array, algorithm: string): Check | null {
  const check = checker(algorithm);
  check.update(bytes);
  return check.value();
}
