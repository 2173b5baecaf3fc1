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
 * - A pack from another build (fingerprint), for another key, of another length than its header
 *   says, whose index is damaged (the header holds its CRC-32) or unreadable is ignored and rewritten.
 * - Each blob of a session (requests, claims, items) has its own CRC-32 in the index, checked when
 *   the blob is first read: a session whose requests or claims are damaged is not served (it is
 *   built from its logs). The items (most of the bytes, which the bill never reads) sit at the end
 *   of the file and are read only where needed: a run that reads items (`readsItems`) checks them
 *   before it serves the session; in a run that said it would not, reading them anyway checks them
 *   then, and a damaged blob throws rather than being returned.
 * - It is written to a temp file and renamed (atomic): a run killed mid-write leaves the previous
 *   pack or none, never a part of one. Nothing is written when the run changed nothing. A run keeps
 *   the pack it read open, so a pack renamed over it meanwhile does not change what it reads.
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
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as zlib from 'node:zlib';
import { CachecostError } from '../session/errors.js';
import type { Session } from '../session/model.js';
import type { ContentMode } from './content-mode.js';
import { type ParseCache, racyMs } from './parse-cache.js';
import {
  assembleSession,
  encodeSession,
  type EncodedSession,
  requestColumns,
  type SessionHead,
} from './session-codec.js';

const MAGIC = 'cachecost-run-pack/3';
const ALIGN = 8;
/** Builds checked against the deferred claims before they are put in the run's map. */
const MAX_DEFERRED_CHECKS = 8;
/** Bytes read for the header line at first (it names the run's paths: a longer one is read whole). */
const HEADER_PROBE = 4_096;

/** A file as it was when an outcome or a session was computed from it. */
export type FileStamp = readonly [dev: number, ino: number, size: number, mtimeMs: number];

/** The check of some bytes: their CRC-32, or their sha256 in hex where zlib has no crc32. */
type Check = number | string;

type Header = {
  readonly magic: string;
  readonly fingerprint: string;
  readonly key: string;
  readonly writtenAtMs: number;
  /** `crc32` or `sha256`: how the index and every blob are checked. */
  readonly algorithm: string;
  /** Bytes of the index JSON (padded with spaces so that the blobs start 8-aligned in the file). */
  readonly indexBytes: number;
  /** The check of the index bytes. */
  readonly index: Check;
  /** Bytes of the region read with the index: every session's requests (or whole JSON) and claims. */
  readonly eagerBytes: number;
  /** Bytes of the region after it, read only where needed: the sessions' items. */
  readonly lazyBytes: number;
};

/** A blob: its byte offset in its region, its length, its check. */
type Blob = readonly [offset: number, bytes: number, check: Check];

type StoredSession =
  | {
      /** The caller's key (which names the session's files, in order). */
      readonly key: string;
      /** The stamps of the session's files, in the order of the caller's paths. */
      readonly files: readonly FileStamp[];
      /** Who holds `claims` in a run (the session id the adapter claims them for). */
      readonly owner: string;
      readonly claims: Blob;
      readonly kind: 'columns';
      readonly head: SessionHead;
      readonly strings: readonly string[];
      readonly requests: Blob;
      /** In the lazy region. */
      readonly items: Blob;
    }
  | {
      readonly key: string;
      readonly files: readonly FileStamp[];
      readonly owner: string;
      readonly claims: Blob;
      readonly kind: 'json';
      readonly whole: Blob;
    };

type Index = {
  readonly files: readonly (readonly [path: string, ...FileStamp, outcome: unknown])[];
  readonly sessions: readonly StoredSession[];
};

/** A pack as loaded: header, index, the eager region in memory, the file kept open for the lazy region. */
type Loaded = {
  readonly header: Header;
  readonly index: Index;
  readonly eager: Buffer;
  readonly fd: number;
  /** Where the lazy region starts in the file. */
  readonly lazyStart: number;
};

/** A session the pack can serve: its position in the pack, and its parts read on demand. */
export type PackHit = {
  /** A 32-bit hash of each response it claims (`claimHash`): a key whose hash is not here is not claimed. */
  readonly hashes: () => Uint32Array;
  readonly position: number;
  readonly owner: string;
  readonly session: () => Session;
  readonly claimed: () => readonly string[];
};

/** A session kept for the next pack: its stored form, its eager blobs, its items read when the pack is written. */
type Kept = {
  readonly stored: StoredSession;
  /** Built in this run: its blobs' places and checks are not known yet. */
  readonly fresh: boolean;
  readonly eager: readonly [claims: Buffer, body: Buffer];
  readonly items: (() => Buffer) | null;
};

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

type Crc32 = (data: Uint8Array, value?: number) => number;
// zlib.crc32 exists from Node 20.15; without it packs are checked by sha256 (a crc32 pack is then not trusted).
const crc32 = (zlib as { crc32?: Crc32 }).crc32;
const ALGORITHM = crc32 === undefined ? 'sha256' : 'crc32';

/** The check of `bytes` by `algorithm`; null when the algorithm is not available here. */
function checkOf(bytes: Uint8Array, algorithm: string): Check | null {
  if (algorithm === 'crc32') return crc32 === undefined ? null : crc32(bytes);
  if (algorithm === 'sha256') return createHash('sha256').update(bytes).digest('hex');
  return null;
}

/** `bytes` bytes at `position` of `fd`; fewer only where the file ends. */
function readAt(fd: number, bytes: number, position: number): Buffer {
  // Not from the shared pool: requests are viewed in place as float64, which needs 8-alignment.
  const buffer = Buffer.allocUnsafeSlow(bytes);
  let done = 0;
  while (done < bytes) {
    const n = readSync(fd, buffer, done, bytes - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done === bytes ? buffer : buffer.subarray(0, done);
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
  /** What the next pack holds, in order: sessions built in this run, and positions of sessions served. */
  private readonly kept: (Kept | number)[] = [];
  private readonly byKey: Map<string, number>;
  private readonly oldFiles: Map<string, Index['files'][number]>;
  /** Positions of the stored sessions whose requests and claims were checked (and items, for `readsItems`). */
  private readonly checked = new Set<number>();
  private changed = false;
  /** The lazy region of the pack read, once a pack is written with items from it. */
  private lazy: Buffer | null = null;
  /** Sessions served in pack order so far, whose claims are not yet in the run's map. */
  private deferred: PackHit[] = [];
  private inOrder = true;
  private lastPosition = -1;
  private checks = 0;
  /** The run's map as `mayHold` last saw it: how many of its keys it hashed, and their hashes. */
  private mapSeen: { map: Map<string, string> | null; keys: number; hashes: Set<number> } = {
    map: null,
    keys: 0,
    hashes: new Set(),
  };

  private constructor(
    private readonly cache: ParseCache,
    private readonly path: string,
    private readonly key: string,
    private readonly readsItems: boolean,
    private old: Loaded | null,
  ) {
    this.byKey = new Map((old?.index.sessions ?? []).map((stored, i) => [stored.key, i]));
    this.oldFiles = new Map((old?.index.files ?? []).map((file) => [file[0], file]));
  }

  /**
   * The pack of a run over `paths` in `content` mode; an empty one when none can be trusted.
   * `readsItems`: whether the run reads the sessions' items (then they are checked before a
   * session is served); a run that does not (the bill) never reads them from the pack.
   */
  static open(
    cache: ParseCache,
    content: ContentMode,
    paths: readonly string[],
    options: { readonly readsItems: boolean } = { readsItems: true },
  ): RunPack {
    const key = `${content}\0${paths.map((path) => resolve(path)).join('\0')}`;
    const path = packPath(cache, key);
    return new RunPack(cache, path, key, options.readsItems, RunPack.load(path, cache, key));
  }

  private static load(path: string, cache: ParseCache, key: string): Loaded | null {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return null;
    }
    try {
      const size = fstatSync(fd).size;
      let head = readAt(fd, Math.min(size, HEADER_PROBE), 0);
      let split = head.indexOf(0x0a);
      if (split === -1 && head.length < size) {
        head = readAt(fd, size, 0);
        split = head.indexOf(0x0a);
      }
      if (split === -1) throw new Error('run pack: no header line');
      const header = JSON.parse(head.toString('utf8', 0, split)) as Header;
      if (header.magic !== MAGIC || header.fingerprint !== cache.fingerprint || header.key !== key)
        throw new Error('run pack: another build or run');
      const { indexBytes, eagerBytes, lazyBytes } = header;
      const start = split + 1;
      if (size !== start + indexBytes + eagerBytes + lazyBytes) throw new Error('run pack: not the length it says');
      const body = readAt(fd, indexBytes + eagerBytes, start);
      const indexBody = body.subarray(0, indexBytes);
      if (body.length !== indexBytes + eagerBytes || checkOf(indexBody, header.algorithm) !== header.index)
        throw new Error('run pack: damaged index');
      const index = JSON.parse(indexBody.toString('utf8')) as Index;
      return { header, index, eager: body.subarray(indexBytes), fd, lazyStart: start + indexBytes + eagerBytes };
    } catch {
      closeSync(fd);
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

  /** A blob of the eager region (null when it lies outside the region). */
  private eagerBlob(blob: Blob): Buffer | null {
    const eager = this.old?.eager;
    if (eager === undefined || blob[0] + blob[1] > eager.length) return null;
    return eager.subarray(blob[0], blob[0] + blob[1]);
  }

  /** A blob of the lazy region, read from the pack that was loaded (null when the file ends before it). */
  private lazyBlob(blob: Blob): Buffer | null {
    const old = this.old;
    if (old === null || blob[0] + blob[1] > old.header.lazyBytes) return null;
    const bytes = readAt(old.fd, blob[1], old.lazyStart + blob[0]);
    return bytes.length === blob[1] ? bytes : null;
  }

  /** Whether `bytes` are the blob's bytes as written. */
  private intact(bytes: Buffer | null, blob: Blob): bytes is Buffer {
    return bytes !== null && this.old !== null && checkOf(bytes, this.old.header.algorithm) === blob[2];
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

  /**
   * The session stored under `key`, when every one of `paths` is as it was when it was built and
   * its blobs are intact (its items too when the run reads items).
   */
  lookup(key: string, paths: readonly string[]): PackHit | null {
    const position = this.byKey.get(key);
    if (position === undefined || this.old === null) return null;
    const stored = this.old.index.sessions[position];
    if (stored === undefined || stored.files.length !== paths.length) return null;
    for (const [i, file] of stored.files.entries()) {
      const path = paths[i] ?? '';
      const stamp = this.seen.has(path) ? (this.seen.get(path) ?? null) : stampOf(path);
      if (stamp === null || !sameStamp(file, 0, stamp) || !this.trusted(stamp[3])) return null;
    }
    const claims = this.eagerBlob(stored.claims);
    const body = this.eagerBlob(stored.kind === 'json' ? stored.whole : stored.requests);
    if (!this.checked.has(position)) {
      if (!this.intact(claims, stored.claims)) return null;
      if (!this.intact(body, stored.kind === 'json' ? stored.whole : stored.requests)) return null;
    }
    if (claims === null || body === null) return null;
    let items: Buffer | null = null;
    if (stored.kind === 'columns' && this.readsItems) {
      items = this.lazyBlob(stored.items);
      if (!this.intact(items, stored.items)) return null;
    }
    this.checked.add(position);
    let claimed: string[] | undefined;
    return {
      position,
      owner: stored.owner,
      hashes: () => claimHashes(claims),
      claimed: () => (claimed ??= claimKeys(claims)),
      session: () =>
        stored.kind === 'json'
          ? decodeWhole(body)
          : decodeColumns(stored, body, () => (items ??= this.checkedItems(stored)).toString('utf8')),
    };
  }

  /**
   * A session's items read now, in a run that said it would not read them: checked, or an error
   * (damaged, or read after the run closed the pack).
   */
  private checkedItems(stored: Extract<StoredSession, { kind: 'columns' }>): Buffer {
    const bytes = this.lazyBlob(stored.items);
    if (this.intact(bytes, stored.items)) return bytes;
    throw new CachecostError(
      'IO_ERROR',
      `cannot read a session's items from the run pack ${this.path} (damaged, or the run is over); run again with --no-cache`,
    );
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
        // Its claims are read only when one of the map's keys hashes as one of them.
        if (claims.size > 0 && this.mayHold(hit, claims) && holdsOther(hit.claimed(), hit.owner, claims)) return false;
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
    const hashes = new Set(keys.map(claimHash));
    for (const hit of this.deferred) {
      if (hit.owner === owner || !hit.hashes().some((hash) => hashes.has(hash))) continue;
      for (const key of hit.claimed()) if (asked.has(key)) return true;
    }
    return false;
  }

  /**
   * Whether one of the keys of `claims` (the run's map) hashes as one of the hit's claims: when
   * not, the hit holds none of them. The hashes of the map's keys are kept, added as the map grows
   * (sessions built in this run only add to it).
   */
  private mayHold(hit: PackHit, claims: Map<string, string>): boolean {
    if (claims !== this.mapSeen.map) this.mapSeen = { map: claims, keys: 0, hashes: new Set() };
    const seen = this.mapSeen;
    if (claims.size !== seen.keys) {
      let i = 0;
      for (const key of claims.keys()) if (i++ >= seen.keys) seen.hashes.add(claimHash(key));
      seen.keys = claims.size;
    }
    return hit.hashes().some((hash) => seen.hashes.has(hash));
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

  /** Keeps a served session for the next pack (its blobs as stored, with their checks). */
  private keep(position: number): void {
    // Only its position: its blobs are looked up if and when a pack is written.
    this.kept.push(position);
  }

  /** A served session as the next pack keeps it (null when the pack read is gone). */
  private served(position: number): Kept | null {
    const stored = this.old?.index.sessions[position];
    if (stored === undefined) return null;
    const claims = this.eagerBlob(stored.claims) ?? Buffer.alloc(0);
    if (stored.kind === 'json')
      return { stored, fresh: false, eager: [claims, this.eagerBlob(stored.whole) ?? Buffer.alloc(0)], items: null };
    return {
      stored,
      fresh: false,
      eager: [claims, this.eagerBlob(stored.requests) ?? Buffer.alloc(0)],
      // Copied as stored, unchecked: its check goes with it, and whoever reads it checks it.
      items: () => this.keptItems(stored.items),
    };
  }

  /** A kept session's items for the next pack, from the lazy region read whole once (one read, not one per session). */
  private keptItems(blob: Blob): Buffer {
    const old = this.old;
    if (old === null) return Buffer.alloc(0);
    this.lazy ??= readAt(old.fd, old.header.lazyBytes, old.lazyStart);
    return this.lazy.subarray(blob[0], blob[0] + blob[1]);
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
    const encoded: EncodedSession = encodeSession(session);
    const claims = encodeClaims(claimed);
    // Offsets and checks are set when the pack is written.
    const blob: Blob = [0, 0, 0];
    if (encoded.kind === 'json') {
      this.kept.push({
        stored: { key, files, owner, claims: blob, kind: 'json', whole: blob },
        fresh: true,
        eager: [claims, encoded.whole],
        items: null,
      });
      return;
    }
    const { head, strings, requests, items } = encoded;
    this.kept.push({
      stored: { key, files, owner, claims: blob, kind: 'columns', head, strings, requests: blob, items: blob },
      fresh: true,
      eager: [claims, requests],
      items: () => items,
    });
  }

  /**
   * Writes the pack of this run (atomic: temp + rename) when it holds something the pack read does
   * not: a session or outcome computed in this run (and stable). Closes the pack that was read.
   * Entries of files that changed and are still changing are left to a later run; so are those of
   * files no longer found (they are never served again: their files are not as they were).
   */
  async save(): Promise<void> {
    try {
      if (this.changed) await this.write();
    } finally {
      this.close();
    }
  }

  /** Closes the pack that was read (nothing more is served from it). */
  close(): void {
    if (this.old === null) return;
    closeSync(this.old.fd);
    this.old = null;
  }

  private async write(): Promise<void> {
    const region = (): { parts: Buffer[]; bytes: number } => ({ parts: [], bytes: 0 });
    const eager = region();
    const lazy = region();
    /** Places a blob in its region, 8-aligned; a new blob's check is computed, a kept one's kept. */
    const place = (into: { parts: Buffer[]; bytes: number }, bytes: Buffer, kept: Blob | null): Blob => {
      const blob: Blob = [into.bytes, bytes.length, kept?.[2] ?? checkOf(bytes, ALGORITHM) ?? 0];
      into.parts.push(bytes);
      into.bytes += bytes.length;
      const pad = (ALIGN - (into.bytes % ALIGN)) % ALIGN;
      if (pad > 0) {
        into.parts.push(Buffer.alloc(pad));
        into.bytes += pad;
      }
      return blob;
    };
    const kept = this.kept.flatMap((entry) => {
      const resolved = typeof entry === 'number' ? this.served(entry) : entry;
      return resolved === null ? [] : [resolved];
    });
    const sessions: StoredSession[] = kept.map(({ stored, fresh, eager: [claims, body], items }) => {
      const old = fresh ? null : stored;
      const claimsBlob = place(eager, claims, old?.claims ?? null);
      if (stored.kind === 'json')
        return { ...stored, claims: claimsBlob, whole: place(eager, body, old?.kind === 'json' ? old.whole : null) };
      const requests = place(eager, body, old?.kind === 'columns' ? old.requests : null);
      const itemsBlob = place(lazy, items?.() ?? Buffer.alloc(0), old?.kind === 'columns' ? old.items : null);
      return { ...stored, claims: claimsBlob, requests, items: itemsBlob };
    });
    const files = [...this.outcomes].map(([path, [stamp, value]]) => [path, ...stamp, value] as const);
    // The header line and the index are padded with spaces to whole multiples of 8 bytes, so that
    // the blobs start 8-aligned in the file and requests can be viewed as a Float64Array in place.
    const index = Buffer.from(padTo(JSON.stringify({ files, sessions } satisfies Index), 0));
    const header: Header = {
      magic: MAGIC,
      fingerprint: this.cache.fingerprint,
      key: this.key,
      writtenAtMs: this.cache.nowMs,
      algorithm: ALGORITHM,
      indexBytes: index.length,
      index: checkOf(index, ALGORITHM) ?? 0,
      eagerBytes: eager.bytes,
      lazyBytes: lazy.bytes,
    };
    const temp = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      const handle = await open(temp, 'w');
      try {
        await handle.writev([
          Buffer.from(`${padTo(JSON.stringify(header), 1)}\n`),
          index,
          ...eager.parts,
          ...lazy.parts,
        ]);
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

function decodeColumns(
  stored: Extract<StoredSession, { kind: 'columns' }>,
  blob: Buffer,
  itemsJson: () => string,
): Session {
  return assembleSession(stored.head, requestColumns(blob, stored.strings), itemsJson);
}

/**
 * FNV-1a over the UTF-16 code units of a response key: a session's claims blob lists these hashes
 * before the keys, so that checking keys against a session reads its keys only when a hash matches.
 */
function claimHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** A claims blob: the number of keys (uint32 LE), their hashes (uint32 each, native order), then the keys as JSON. */
function encodeClaims(claimed: readonly string[]): Buffer {
  const hashes = Uint32Array.from(claimed, claimHash);
  const count = Buffer.alloc(4);
  count.writeUInt32LE(hashes.length);
  return Buffer.concat([
    count,
    Buffer.from(hashes.buffer, hashes.byteOffset, hashes.byteLength),
    Buffer.from(JSON.stringify(claimed)),
  ]);
}

function claimCount(blob: Buffer): number {
  if (blob.length < 4) throw new Error('run pack: a claims blob is cut');
  return blob.readUInt32LE(0);
}

/** The hashes of a claims blob (`encodeClaims`), in place when 4-aligned. */
function claimHashes(blob: Buffer): Uint32Array {
  const count = claimCount(blob);
  const bytes = blob.subarray(4, 4 + 4 * count);
  if (bytes.length !== 4 * count) throw new Error('run pack: a claims blob is cut');
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes);
  return new Uint32Array(aligned.buffer, aligned.byteOffset, count);
}

/** The keys of a claims blob (`encodeClaims`). */
function claimKeys(blob: Buffer): string[] {
  return JSON.parse(blob.toString('utf8', 4 + 4 * claimCount(blob))) as string[];
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
