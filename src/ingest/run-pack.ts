/**
 * The run pack: one cache file per run root (content mode + the paths a command was given) that
 * holds what a re-run needs to skip the logs it already read: each file's discovery outcome and
 * each session as built (`session-codec.ts`), in the order the run loaded them. A re-run over
 * unchanged logs reads this one file and stats each log once; the parsed-line entries
 * (`parse-cache.ts`) are read only for a session whose files changed (a grown file parses only
 * its new bytes there).
 *
 * Trust rules, the same as the line entries' (`parse-cache.ts`):
 * - An outcome or a session is served only while every file it came from has the identity
 *   (device, inode), size and mtime recorded, and that mtime is more than `racyMs` older than the
 *   run that wrote the pack (a same-size rewrite within the mtime's resolution would look unchanged).
 * - A pack from another build (fingerprint), for another key, damaged (a CRC-32 covers every byte
 *   after the header; the header says how many there are) or unreadable is ignored and rewritten.
 * - It is written to a temp file and renamed (atomic): a run killed mid-write leaves the previous
 *   pack or none, never a part of one. Nothing is written when the run changed nothing.
 *
 * Claims (responses a session counted, which a later session of the run must not count again,
 * formats.md §1.5): a session is cached with the keys it asked for. Served from the pack it must
 * still win them against the sessions before it in this run, unless the run so far is a prefix of
 * the run that wrote the pack (every session before it came from the pack, in the pack's order):
 * then the sessions before it hold a subset of what they held when it was stored, when it won
 * them all; only what sessions built in this run claimed (in the run's map) is checked. The served
 * sessions' claims stay out of the map: a session built in the run is checked against them after
 * its build (`deferredHoldsAny`), and built again against the whole map when one holds a response
 * it asked for.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as zlib from 'node:zlib';
import type { Session } from '../session/model.js';
import type { ContentMode } from './content-mode.js';
import { type ParseCache, racyMs } from './parse-cache.js';
import {
  assembleSession,
  decodeRequests,
  encodeSession,
  type EncodedSession,
  REQUEST_SLOTS,
  type SessionHead,
} from './session-codec.js';

const MAGIC = 'cachecost-run-pack/1';
const ALIGN = 8;
/** Builds checked against the deferred claims before they are put in the run's map. */
const MAX_DEFERRED_CHECKS = 8;

/** A file as it was when an outcome or a session was computed from it. */
export type FileStamp = readonly [dev: number, ino: number, size: number, mtimeMs: number];

type Header = {
  readonly magic: string;
  readonly fingerprint: string;
  readonly key: string;
  readonly writtenAtMs: number;
  /** Bytes of the index JSON (padded with spaces so that the blobs start 8-aligned in the file). */
  readonly indexBytes: number;
  readonly blobBytes: number;
  /** `crc32:<n>` or `sha256:<hex>` of every byte after the header line. */
  readonly check: string;
};

/** Where a blob lies in the blob region: byte offset and length. */
type Span = readonly [offset: number, bytes: number];

type StoredSession =
  | {
      /** `keyDigest` of the caller's key (which names the session's files, in order). */
      readonly key: string;
      /** The stamps of the session's files, in the order of the caller's paths. */
      readonly files: readonly FileStamp[];
      /** Who holds `claims` in a run (the session id the adapter claims them for). */
      readonly owner: string;
      readonly claims: Span;
      readonly kind: 'columns';
      readonly head: SessionHead;
      readonly strings: readonly string[];
      readonly requests: Span;
      readonly items: Span;
    }
  | {
      readonly key: string;
      readonly files: readonly FileStamp[];
      readonly owner: string;
      readonly claims: Span;
      readonly kind: 'json';
      readonly whole: Span;
    };

type Index = {
  readonly files: readonly (readonly [path: string, ...FileStamp, outcome: unknown])[];
  readonly sessions: readonly StoredSession[];
};

/** A session the pack can serve: its position in the pack, and its parts read on demand. */
export type PackHit = {
  readonly position: number;
  readonly owner: string;
  readonly session: () => Session;
  readonly claimed: () => readonly string[];
};

/** A session kept for the next pack: its stored form and where its blobs are. */
type Kept = { readonly stored: StoredSession; readonly blobs: readonly Buffer[] };

function stampOf(path: string): FileStamp | null {
  try {
    const info = statSync(path);
    return [info.dev, info.ino, info.size, info.mtimeMs];
  } catch {
    return null;
  }
}

function sameStamp(a: readonly unknown[], offset: number, b: FileStamp): boolean {
  return a[offset] === b[0] && a[offset + 1] === b[1] && a[offset + 2] === b[2] && a[offset + 3] === b[3];
}

/** The file's stamp, taken before it is read: a session stored with it is dropped if the file changed meanwhile. */
export function stampFiles(paths: readonly string[]): (FileStamp | null)[] {
  return paths.map(stampOf);
}

/** The check of `chunks` read as one byte string; null when the algorithm is not available here. */
function checkOf(chunks: readonly Uint8Array[], algorithm: string): string | null {
  if (algorithm === 'crc32') {
    // zlib.crc32 exists from Node 20.15; without it a crc32 pack is not checked, so not trusted.
    const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
    if (crc32 === undefined) return null;
    let value = 0;
    for (const chunk of chunks) value = crc32(chunk, value);
    return `crc32:${value}`;
  }
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk);
  return `sha256:${hash.digest('hex')}`;
}

const CHECK_ALGORITHM = typeof (zlib as { crc32?: unknown }).crc32 === 'function' ? 'crc32' : 'sha256';

/** A session's key as stored: a digest (keys name every file of the session). */
function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 24);
}

/** The pack's path for `key` in `cache`. */
function packPath(cache: ParseCache, key: string): string {
  return join(cache.dir, `run-${createHash('sha256').update(key).digest('hex').slice(0, 40)}.pack`);
}

/** The pack of one run, loaded at the start and saved at the end (see the module comment). */
export class RunPack {
  /** Discovery outcomes of this run (path → stamp and outcome), for the next pack. */
  private readonly outcomes = new Map<string, readonly [FileStamp, unknown]>();
  /**
   * Stamps taken by discovery in this run: a session's files are checked against the pack as
   * discovery saw them (one stat per file per run); a file changed since is read as it was then
   * or, when its session is built, as it is when read, like any file changed during a run.
   */
  private readonly seen = new Map<string, FileStamp | null>();
  private readonly kept: Kept[] = [];
  private readonly byKey: Map<string, number>;
  private readonly oldFiles: Map<string, Index['files'][number]>;
  private changed = false;
  /** Sessions served in pack order so far, whose claims are not yet in the run's map. */
  private deferred: PackHit[] = [];
  private inOrder = true;
  private lastPosition = -1;
  private checks = 0;

  private constructor(
    private readonly cache: ParseCache,
    private readonly path: string,
    private readonly key: string,
    private readonly old: { readonly header: Header; readonly index: Index; readonly blobs: Buffer } | null,
  ) {
    this.byKey = new Map((old?.index.sessions ?? []).map((stored, i) => [stored.key, i]));
    this.oldFiles = new Map((old?.index.files ?? []).map((file) => [file[0], file]));
  }

  /** The pack of a run over `paths` in `content` mode; an empty one when none can be trusted. */
  static open(cache: ParseCache, content: ContentMode, paths: readonly string[]): RunPack {
    const key = `${content}\0${paths.map((path) => resolve(path)).join('\0')}`;
    const path = packPath(cache, key);
    return new RunPack(cache, path, key, RunPack.load(path, cache, key));
  }

  private static load(
    path: string,
    cache: ParseCache,
    key: string,
  ): { header: Header; index: Index; blobs: Buffer } | null {
    try {
      const bytes = readFileSync(path);
      const split = bytes.indexOf(0x0a);
      if (split === -1) return null;
      const header = JSON.parse(bytes.toString('utf8', 0, split)) as Header;
      if (header.magic !== MAGIC || header.fingerprint !== cache.fingerprint || header.key !== key) return null;
      const body = bytes.subarray(split + 1);
      if (body.length !== header.indexBytes + header.blobBytes) return null;
      const algorithm = header.check.slice(0, header.check.indexOf(':'));
      if (checkOf([body], algorithm) !== header.check) return null;
      const index = JSON.parse(body.toString('utf8', 0, header.indexBytes)) as Index;
      return { header, index, blobs: body.subarray(header.indexBytes) };
    } catch {
      return null;
    }
  }

  private trusted(mtimeMs: number): boolean {
    return this.old !== null && mtimeMs < this.old.header.writtenAtMs - racyMs(mtimeMs);
  }

  /**
   * Whether what was computed from a file of this mtime is worth storing: a file modified less than
   * `racyMs` before this run started would never be trusted from this run's pack.
   */
  private stable(mtimeMs: number): boolean {
    return mtimeMs < this.cache.nowMs - racyMs(mtimeMs);
  }

  /**
   * The discovery outcome recorded for `path`, when the file is as it was then; `undefined`
   * otherwise (then `recordOutcome` stores the new one). `stamp` is null when the file cannot be stat'ed.
   */
  outcome(path: string): { readonly stamp: FileStamp | null; readonly value: unknown } {
    const stamp = stampOf(path);
    this.seen.set(path, stamp);
    const file = this.oldFiles.get(path);
    if (stamp !== null && file !== undefined && sameStamp(file, 1, stamp) && this.trusted(stamp[3])) {
      this.outcomes.set(path, [stamp, file[5]]);
      return { stamp, value: file[5] };
    }
    return { stamp, value: undefined };
  }

  /** Records the outcome of `path` as computed from the file stamped `stamp` (taken before reading it). */
  recordOutcome(path: string, stamp: FileStamp | null, value: unknown): void {
    if (stamp === null || !this.stable(stamp[3])) return;
    this.changed = true;
    this.outcomes.set(path, [stamp, value]);
  }

  /** The session stored under `key`, when every one of `paths` is as it was when it was built. */
  lookup(key: string, paths: readonly string[]): PackHit | null {
    const position = this.byKey.get(keyDigest(key));
    if (position === undefined || this.old === null) return null;
    const stored = this.old.index.sessions[position];
    if (stored === undefined || stored.files.length !== paths.length) return null;
    for (const [i, file] of stored.files.entries()) {
      const path = paths[i] ?? '';
      const stamp = this.seen.has(path) ? (this.seen.get(path) ?? null) : stampOf(path);
      if (stamp === null || !sameStamp(file, 0, stamp) || !this.trusted(stamp[3])) return null;
    }
    const blobs = this.old.blobs;
    const slice = (span: Span): Buffer => blobs.subarray(span[0], span[0] + span[1]);
    let claimed: string[] | undefined;
    return {
      position,
      owner: stored.owner,
      claimed: () => (claimed ??= JSON.parse(slice(stored.claims).toString('utf8')) as string[]),
      session: () => (stored.kind === 'json' ? decodeWhole(slice(stored.whole)) : decodeColumns(stored, slice)),
    };
  }

  /**
   * Serves a hit: true when the session may be used as stored, its claims won in `claims` (the
   * run's response claims; undefined = the run keeps none). False: the session is to be built.
   */
  serve(hit: PackHit, claims: Map<string, string> | undefined): boolean {
    if (claims !== undefined) {
      if (this.inOrder && hit.position > this.lastPosition) {
        // The sessions served before it in the pack's order cannot hold its responses (module
        // comment); the map holds what the sessions built in this run claimed: only those are checked.
        if (claims.size > 0 && holdsOther(hit.claimed(), hit.owner, claims)) return false;
        this.deferred.push(hit);
        this.lastPosition = hit.position;
      } else {
        this.settle(claims);
        if (!claimAll(hit.claimed(), hit.owner, claims)) return false;
      }
    }
    this.keep(hit.position);
    return true;
  }

  /**
   * Whether a session served earlier in this run, whose claims are not in the run's map yet, holds
   * one of `keys` (asked by a session being built for `owner`). Past a few builds the deferred
   * claims are put in the map instead (`settle`): each such check reads them all.
   */
  deferredHoldsAny(keys: readonly string[], owner: string, claims: Map<string, string>): boolean {
    if (this.deferred.length === 0) return false;
    this.checks += 1;
    if (this.checks > MAX_DEFERRED_CHECKS) {
      this.settle(claims);
      return true;
    }
    const asked = new Set(keys);
    for (const hit of this.deferred) {
      if (hit.owner === owner) continue;
      for (const key of hit.claimed()) if (asked.has(key)) return true;
    }
    return false;
  }

  /** Whether responses are still deferred (a session built now must be checked against them). */
  get deferring(): boolean {
    return this.deferred.length > 0;
  }

  /** Puts the deferred sessions' claims into `claims`; from then on every session is checked against the map. */
  settle(claims: Map<string, string> | undefined): void {
    this.inOrder = false;
    if (claims === undefined) return;
    for (const hit of this.deferred) for (const key of hit.claimed()) if (!claims.has(key)) claims.set(key, hit.owner);
    this.deferred = [];
  }

  private keep(position: number): void {
    const stored = this.old?.index.sessions[position];
    const blobs = this.old?.blobs;
    if (stored === undefined || blobs === undefined) return;
    const slice = (span: Span): Buffer => blobs.subarray(span[0], span[0] + span[1]);
    this.kept.push({
      stored,
      blobs:
        stored.kind === 'json'
          ? [slice(stored.claims), slice(stored.whole)]
          : [slice(stored.claims), slice(stored.requests), slice(stored.items)],
    });
  }

  /**
   * Stores a session built in this run from `paths`, stamped before they were read
   * (`stampsBefore`); not stored when a file changed while it was read (the session may mix its versions).
   */
  store(
    key: string,
    paths: readonly string[],
    stampsBefore: readonly (FileStamp | null)[],
    owner: string,
    session: Session,
    claimed: readonly string[],
  ): void {
    const files: FileStamp[] = [];
    for (const [i, path] of paths.entries()) {
      const before = stampsBefore[i];
      const now = stampOf(path);
      if (before === null || before === undefined || now === null || !sameStamp(now, 0, before)) return;
      if (!this.stable(now[3])) return;
      files.push(now);
    }
    this.changed = true;
    const digest = keyDigest(key);
    const encoded: EncodedSession = encodeSession(session);
    const claims = Buffer.from(JSON.stringify(claimed));
    const span: Span = [0, 0];
    this.kept.push(
      encoded.kind === 'json'
        ? {
            stored: { key: digest, files, owner, claims: span, kind: 'json', whole: span },
            blobs: [claims, encoded.whole],
          }
        : {
            stored: {
              key: digest,
              files,
              owner,
              claims: span,
              kind: 'columns',
              head: encoded.head,
              strings: encoded.strings,
              requests: span,
              items: span,
            },
            blobs: [claims, encoded.requests, encoded.items],
          },
    );
  }

  /**
   * Writes the pack of this run (atomic: temp + rename) when it holds something the pack read does
   * not: a session or outcome computed in this run (and stable).
   * Entries of files that changed and are still changing are left to a later run; so are those of
   * files no longer found (they are never served again: their files are not as they were).
   */
  async save(): Promise<void> {
    if (!this.changed) return;
    const parts: Buffer[] = [];
    let offset = 0;
    const place = (blob: Buffer): Span => {
      const span: Span = [offset, blob.length];
      parts.push(blob);
      offset += blob.length;
      const pad = (ALIGN - (offset % ALIGN)) % ALIGN;
      if (pad > 0) {
        parts.push(Buffer.alloc(pad));
        offset += pad;
      }
      return span;
    };
    const sessions: StoredSession[] = this.kept.map(({ stored, blobs }) => {
      const claims = place(blobs[0] ?? Buffer.alloc(0));
      if (stored.kind === 'json') return { ...stored, claims, whole: place(blobs[1] ?? Buffer.alloc(0)) };
      const requests = place(blobs[1] ?? Buffer.alloc(0));
      return { ...stored, claims, requests, items: place(blobs[2] ?? Buffer.alloc(0)) };
    });
    const files = [...this.outcomes].map(([path, [stamp, value]]) => [path, ...stamp, value] as const);
    // The header line and the index are padded with spaces to whole multiples of 8 bytes, so that
    // the blobs start 8-aligned in the file and requests can be viewed as a Float64Array in place.
    const index = Buffer.from(padTo(JSON.stringify({ files, sessions } satisfies Index), 0));
    const body = [index, ...parts];
    const header: Header = {
      magic: MAGIC,
      fingerprint: this.cache.fingerprint,
      key: this.key,
      writtenAtMs: this.cache.nowMs,
      indexBytes: index.length,
      blobBytes: offset,
      check: checkOf(body, CHECK_ALGORITHM) ?? '',
    };
    const temp = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      const handle = await open(temp, 'w');
      try {
        await handle.writev([Buffer.from(`${padTo(JSON.stringify(header), 1)}\n`), ...body]);
      } finally {
        await handle.close();
      }
      await rename(temp, this.path);
    } catch {
      // A pack that cannot be written only costs the next run its speed.
      await rm(temp, { force: true }).catch(() => undefined);
    }
  }
}

/** `text` padded with spaces so that its UTF-8 length plus `extra` bytes is a multiple of 8. */
function padTo(text: string, extra: number): string {
  const bytes = Buffer.byteLength(text) + extra;
  return text + ' '.repeat((ALIGN - (bytes % ALIGN)) % ALIGN);
}

function decodeWhole(bytes: Buffer): Session {
  return JSON.parse(bytes.toString('utf8')) as Session;
}

function decodeColumns(stored: Extract<StoredSession, { kind: 'columns' }>, slice: (span: Span) => Buffer): Session {
  const blob = slice(stored.requests);
  const count = blob.length / (8 + 4 * REQUEST_SLOTS);
  if (!Number.isInteger(count)) throw new Error('run pack: a request row is cut');
  // In place when aligned (the pack aligns every blob); a copy otherwise.
  const bytes = blob.byteOffset % ALIGN === 0 ? blob : Buffer.from(blob);
  const timestamps = new Float64Array(bytes.buffer, bytes.byteOffset, count);
  const rows = new Int32Array(bytes.buffer, bytes.byteOffset + 8 * count, count * REQUEST_SLOTS);
  const items = slice(stored.items);
  return assembleSession(stored.head, decodeRequests(timestamps, rows, stored.strings), () => items.toString('utf8'));
}

/** Whether another session than `owner` holds one of `keys` in `claims`. */
function holdsOther(keys: readonly string[], owner: string, claims: Map<string, string>): boolean {
  for (const key of keys) {
    const holder = claims.get(key);
    if (holder !== undefined && holder !== owner) return true;
  }
  return false;
}

/**
 * Claims `keys` for `owner`, as building the session would: only when no other holder has any
 * of them (then the build would be the same); false leaves the claims as they were.
 */
function claimAll(keys: readonly string[], owner: string, claims: Map<string, string>): boolean {
  for (const key of keys) {
    const holder = claims.get(key);
    if (holder !== undefined && holder !== owner) return false;
  }
  for (const key of keys) if (!claims.has(key)) claims.set(key, owner);
  return true;
}
