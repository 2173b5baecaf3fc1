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
 * - A pack from another build (fingerprint), for another key, of another length than its trailer
 *   says, whose index is damaged (the trailer holds its CRC-32) or unreadable is ignored and rewritten.
 * - Each blob of a session (requests, claims, items) has its own CRC-32 in the index, checked when
 *   the blob is first read: a session whose requests or claims are damaged is not served (it is
 *   built from its logs). Each segment's eager region (requests and claims) has a check of its
 *   own too, taken once when the regions are read (one CRC over megabytes instead of two per
 *   session): a blob in a region that passes it is not checked again; in one that fails, each is
 *   checked alone. The regions are read on libuv's thread pool while discovery runs (`ready()`), or
 *   at once by a lookup that comes first; a region that comes short serves no session.
 *   The items (most of the bytes, which the bill never reads) sit after
 *   their segment's eager region and are read only where needed: a run that reads items (`readsItems`) checks them
 *   before it serves the session; in a run that said it would not, reading them anyway checks them
 *   then, and a damaged blob throws rather than being returned.
 * - Layout: a header line (magic, build fingerprint, key, check algorithm), then segments, each
 *   `[eager blobs][lazy blobs][index][trailer]`; the trailer (fixed size, the last bytes of the
 *   file) says where its segment and index lie and holds the index's check; the index (the whole
 *   pack's: every session, wherever its blobs are) names its blobs by file offset. Only the last
 *   segment's index is read; a file that does not end with a trailer whose segment ends exactly
 *   there is not trusted.
 * - A pack is first written to a temp file and renamed (atomic): a run killed mid-write leaves the
 *   previous pack or none, never a part of one. A run that changed a few sessions (a transcript
 *   grew) appends one segment instead: the new sessions' blobs and the new index, the unchanged
 *   sessions' blobs kept where they are. A run killed mid-append leaves a file that does not end
 *   with a trailer that matches: not trusted, rebuilt whole by the next run. Once the bytes no
 *   longer referenced outweigh the live ones (or after `MAX_SEGMENTS`), the pack is written whole
 *   again. Nothing is written when the run changed nothing. A run keeps the pack it read open, so
 *   a pack renamed over it meanwhile does not change what it reads.
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
import { closeSync, fstatSync, openSync, read, readSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CachecostError } from '../session/errors.js';
import type { Session } from '../session/model.js';
import type { ContentMode } from './content-mode.js';
import { type ParseCache, racyMs } from './parse-cache.js';
import {
  assembleSession,
  encodeSession,
  type EncodedSession,
  requestColumnsAt,
  type SessionHead,
} from './session-codec.js';
import { type Check, CHECK_ALGORITHM, checker, checkOf, nameHash } from './byte-check.js';

const readAsync = promisify(read);

const MAGIC = 'cachecost-run-pack/6';
/** The tag that starts every trailer. */
const TRAILER_TAG = 'cachecost-run-pack-segment/4';
/** Bytes of a trailer: its JSON padded with spaces, then a newline. */
const TRAILER_BYTES = 256;
/** Segments appended before the pack is written whole again. */
const MAX_SEGMENTS = 16;
const ALIGN = 8;
/** Builds checked against the deferred claims before they are put in the run's map. */
const MAX_DEFERRED_CHECKS = 8;
/** Bytes read for the header line at first (it names the run's paths: a longer one is read whole). */
const HEADER_PROBE = 4_096;

/** A file as it was when an outcome or a session was computed from it. */
export type FileStamp = readonly [dev: number, ino: number, size: number, mtimeMs: number];

/** The first line of a pack, written once when the pack is written whole (padded to 8 bytes). */
type Header = {
  readonly magic: string;
  readonly fingerprint: string;
  readonly key: string;
  /** `crc32` or `sha256`: how the index and every blob are checked. */
  readonly algorithm: string;
};

/** The last `TRAILER_BYTES` of a pack: where the last segment and its index are. */
type Trailer = {
  readonly tag: string;
  /** File offset of the segment. */
  readonly start: number;
  /** Bytes of its region read with the index: its sessions' requests (or whole JSON) and claims. */
  readonly eagerBytes: number;
  /** Bytes of the region after it, read only where needed: its sessions' items. */
  readonly lazyBytes: number;
  /** Bytes of the index JSON after both (padded with spaces to a multiple of 8). */
  readonly indexBytes: number;
  /** The check of the index bytes. */
  readonly index: Check;
};

/** A blob: its byte offset in the file, its length, its check. */
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
  /** When the run that wrote this index started (`ParseCache.nowMs`): the racy-mtime rule's reference. */
  readonly writtenAtMs: number;
  /**
   * The eager region of each segment: file offset, bytes, and the check of those bytes (one check
   * of the whole region on load instead of one per blob: a re-run serves hundreds of sessions).
   */
  readonly eager: readonly (readonly [start: number, bytes: number, check: Check])[];
  readonly files: readonly (readonly [path: string, ...FileStamp, outcome: unknown])[];
  readonly sessions: readonly StoredSession[];
};

/** A segment's eager region as loaded (see `Loaded`). */
type Region = { readonly start: number; readonly bytes: Buffer; readonly intact: boolean };

/**
 * A pack as loaded: header, index (its eager regions' bounds checked against the file), the file
 * kept open for the regions (`RunPack.eagerRegions`) and the lazy blobs.
 */
type Loaded = {
  readonly header: Header;
  readonly index: Index;
  readonly fd: number;
  /** The file's length and identity when it was read (an append goes on from there). */
  readonly size: number;
  readonly dev: number;
  readonly ino: number;
  /** Bytes of the header line: where the first segment starts. */
  readonly headerBytes: number;
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

/** A session built in this run, kept for the next pack: its stored form (blobs not placed yet) and its bytes. */
type Fresh = {
  readonly stored: StoredSession;
  readonly eager: readonly [claims: Buffer, body: Buffer];
  readonly items: Buffer | null;
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

/** `readAt` on libuv's thread pool: the copy and the page faults of a fresh buffer are not the main thread's. */
async function readAtLater(fd: number, bytes: number, position: number): Promise<Buffer> {
  // Not from the shared pool, as `readAt`.
  const buffer = Buffer.allocUnsafeSlow(bytes);
  let done = 0;
  while (done < bytes) {
    const { bytesRead } = await readAsync(fd, buffer, done, bytes - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === bytes ? buffer : buffer.subarray(0, done);
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

/** The pack's path for `key` in `cache` (`nameHash`: the header holds the key). */
function packPath(cache: ParseCache, key: string): string {
  return join(cache.dir, `run-${nameHash(key)}.pack`);
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
  private readonly kept: (Fresh | number)[] = [];
  private readonly byKey: Map<string, number>;
  private readonly oldFiles: Map<string, Index['files'][number]>;
  /** Positions of the stored sessions whose requests and claims were checked (and items, for `readsItems`). */
  private readonly checked = new Set<number>();
  /**
   * Each key's lookup, once: a run that plans its workers (`startClaudeBuildAhead`) looks every
   * session up before loading it, and the answer stands for the run (its files' stamps are taken
   * once, as discovery's are).
   */
  private readonly hits = new Map<string, PackHit | null>();
  private changed = false;
  /** The pack read, whole, once a pack is written whole with blobs from it. */
  private whole: Buffer | null = null;
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
  /**
   * Each segment's eager region, read whole (null: not yet); `intact`: its bytes match the region's
   * check (then every blob in it is as written, and its own check is not taken again).
   */
  private regions: readonly Region[] | null = null;
  /**
   * The eager regions as read on the thread pool since the pack was opened (null: any read failed
   * or came short), while discovery runs on this thread; `ready()` takes them. A run that looks a
   * session up before (or without) `ready()` reads them itself, at once.
   */
  private readonly reading: Promise<Buffer[] | null> | null;
  /** Whether a read of `reading` may still use the file (then closing it waits). */
  private readingFile = false;

  private constructor(
    private readonly cache: ParseCache,
    private readonly path: string,
    private readonly key: string,
    private readonly readsItems: boolean,
    private old: Loaded | null,
  ) {
    this.byKey = new Map((old?.index.sessions ?? []).map((stored, i) => [stored.key, i]));
    this.oldFiles = new Map((old?.index.files ?? []).map((file) => [file[0], file]));
    if (old === null) this.reading = null;
    else {
      this.readingFile = true;
      this.reading = Promise.all(old.index.eager.map(([at, bytes]) => readAtLater(old.fd, bytes, at))).then(
        (read) => {
          this.readingFile = false;
          return read;
        },
        () => {
          this.readingFile = false;
          return null;
        },
      );
    }
  }

  /** Waits for the eager regions read since the pack was opened; call it before looking sessions up. */
  async ready(): Promise<void> {
    if (this.reading === null || this.regions !== null) return;
    const read = await this.reading;
    if (this.regions === null && read !== null) this.regions = this.checkedRegions(read);
  }

  /** The eager regions, read now if `ready()` did not take them (none once the pack is closed). */
  private eagerRegions(): readonly Region[] {
    const old = this.old;
    if (old === null) return [];
    if (this.regions === null) {
      let read: Buffer[];
      try {
        read = old.index.eager.map(([at, bytes]) => readAt(old.fd, bytes, at));
      } catch {
        // Unreadable: no session is served from it (as a pack that cannot be read is not).
        read = [];
      }
      this.regions = this.checkedRegions(read);
    }
    return this.regions;
  }

  /**
   * The regions with their checks taken. One that comes short (the file was cut after it was
   * opened) makes no session served: each is built from its logs, and the pack written again.
   */
  private checkedRegions(read: readonly Buffer[]): readonly Region[] {
    const old = this.old;
    if (old === null) return [];
    const regions: Region[] = [];
    for (const [i, [at, bytes, check]] of old.index.eager.entries()) {
      const region = read[i];
      if (region === undefined || region.length !== bytes) return [];
      // A region that fails its check may still hold intact blobs: each is then checked alone.
      regions.push({ start: at, bytes: region, intact: checkOf(region, old.header.algorithm) === check });
    }
    return regions;
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
    // Each path as resolved (a relative one names another directory from another working
    // directory) and as written: the stored sessions name their files as the run spelled them, so
    // a pack shared by two spellings of one directory would serve neither, and each run over one
    // spelling would rebuild it for the other.
    const key = `${content}\0${paths.map((path) => `${resolve(path)}\0${path}`).join('\0')}`;
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
      const info = fstatSync(fd);
      const size = info.size;
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
      const headerBytes = split + 1;
      if (size < headerBytes + TRAILER_BYTES) throw new Error('run pack: no trailer');
      const trailerBytes = readAt(fd, TRAILER_BYTES, size - TRAILER_BYTES);
      if (trailerBytes[TRAILER_BYTES - 1] !== 0x0a) throw new Error('run pack: no trailer');
      const trailer = JSON.parse(trailerBytes.toString('utf8')) as Trailer;
      const { start, eagerBytes, lazyBytes, indexBytes } = trailer;
      // The last segment ends exactly where the file does: an append cut short, or bytes added after
      // it, leave a file that is not trusted.
      if (
        trailer.tag !== TRAILER_TAG ||
        !wholeNumbers(start, eagerBytes, lazyBytes, indexBytes) ||
        start < headerBytes ||
        start + eagerBytes + lazyBytes + indexBytes + TRAILER_BYTES !== size
      )
        throw new Error('run pack: not the length it says');
      const indexBody = readAt(fd, indexBytes, start + eagerBytes + lazyBytes);
      if (indexBody.length !== indexBytes || checkOf(indexBody, header.algorithm) !== trailer.index)
        throw new Error('run pack: damaged index');
      const index = JSON.parse(indexBody.toString('utf8')) as Index;
      for (const [at, bytes] of index.eager)
        if (!wholeNumbers(at, bytes) || at < headerBytes || at + bytes > size) throw new Error('run pack: bad region');
      // The regions themselves are read apart (`RunPack.reading`), while discovery runs.
      return { header, index, fd, size, dev: info.dev, ino: info.ino, headerBytes };
    } catch {
      closeSync(fd);
      return null;
    }
  }

  private trusted(mtimeMs: number): boolean {
    return this.old !== null && mtimeMs < this.old.index.writtenAtMs - racyMs(mtimeMs);
  }

  /**
   * Whether what was computed from a file of this mtime is worth storing: a file modified less than
   * `racyMs` before this run started would never be trusted from this run's pack.
   */
  private stable(mtimeMs: number): boolean {
    return mtimeMs < this.cache.nowMs - racyMs(mtimeMs);
  }

  /** The eager region a blob lies in (null when in none). */
  private regionOf(blob: Blob): Region | null {
    for (const region of this.eagerRegions()) {
      const at = blob[0] - region.start;
      if (at >= 0 && at + blob[1] <= region.bytes.length) return region;
    }
    return null;
  }

  /** A blob of an eager region (null when it lies in none). */
  private eagerBlob(blob: Blob): Buffer | null {
    for (const region of this.eagerRegions()) {
      const at = blob[0] - region.start;
      if (at >= 0 && at + blob[1] <= region.bytes.length) return region.bytes.subarray(at, at + blob[1]);
    }
    return null;
  }

  /** A blob of a lazy region, read from the pack that was loaded (null when the file ends before it). */
  private lazyBlob(blob: Blob): Buffer | null {
    const old = this.old;
    if (old === null || !wholeNumbers(blob[0], blob[1]) || blob[0] < old.headerBytes || blob[0] + blob[1] > old.size)
      return null;
    const bytes =
      this.whole !== null ? this.whole.subarray(blob[0], blob[0] + blob[1]) : readAt(old.fd, blob[1], blob[0]);
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
    let hit = this.hits.get(key);
    if (hit === undefined) {
      hit = this.lookupOnce(key, paths);
      this.hits.set(key, hit);
    }
    return hit;
  }

  private lookupOnce(key: string, paths: readonly string[]): PackHit | null {
    const position = this.byKey.get(key);
    if (position === undefined || this.old === null) return null;
    const stored = this.old.index.sessions[position];
    if (stored === undefined || stored.files.length !== paths.length) return null;
    for (const [i, file] of stored.files.entries()) {
      const path = paths[i] ?? '';
      const stamp = this.seen.has(path) ? (this.seen.get(path) ?? null) : stampOf(path);
      if (stamp === null || !sameStamp(file, 0, stamp) || !this.trusted(stamp[3])) return null;
    }
    // Where the blobs lie; their bytes are cut out only where they are read (most re-runs read
    // no claims, and the requests are viewed in place): a Buffer per blob per session cost more
    // than the checks.
    const bodyBlob = stored.kind === 'json' ? stored.whole : stored.requests;
    const claimsRegion = this.regionOf(stored.claims);
    const bodyRegion = this.regionOf(bodyBlob);
    if (claimsRegion === null || bodyRegion === null) return null;
    if (!this.checked.has(position)) {
      if (!claimsRegion.intact && !this.intact(blobIn(claimsRegion, stored.claims), stored.claims)) return null;
      if (!bodyRegion.intact && !this.intact(blobIn(bodyRegion, bodyBlob), bodyBlob)) return null;
    }
    let items: Buffer | null = null;
    if (stored.kind === 'columns' && this.readsItems) {
      items = this.lazyBlob(stored.items);
      if (!this.intact(items, stored.items)) return null;
    }
    this.checked.add(position);
    let claimed: string[] | undefined;
    let claimsBytes: Buffer | undefined;
    const claims = (): Buffer => (claimsBytes ??= blobIn(claimsRegion, stored.claims));
    return {
      position,
      owner: stored.owner,
      hashes: () => claimHashes(claims()),
      claimed: () => (claimed ??= claimKeys(claims())),
      session: () =>
        stored.kind === 'json'
          ? decodeWhole(blobIn(bodyRegion, stored.whole))
          : assembleSession(
              stored.head,
              requestColumnsAt(bodyRegion.bytes, bodyBlob[0] - bodyRegion.start, bodyBlob[1], stored.strings),
              () => (items ??= this.checkedItems(stored)).toString('utf8'),
            ),
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
    const hashes = new Set(keys.map(claimHash));
    // The keys themselves only where a hash matches (a grown session asks for thousands).
    let asked: Set<string> | null = null;
    for (const hit of this.deferred) {
      if (hit.owner === owner || !anyIn(hit.hashes(), hashes)) continue;
      asked ??= new Set(keys);
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
    return anyIn(hit.hashes(), seen.hashes);
  }

  /**
   * Whether an earlier run's pack was read and trusted (it may serve this run's sessions); false
   * for an empty one (no pack, or one rebuilt: every session will be read).
   */
  get loaded(): boolean {
    return this.old !== null;
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

  /**
   * Stores a session built in this run from `paths`, stamped before they were read
   * (`stampsBefore`); not stored when a file changed while it was read (the session may mix its
   * versions). `encodedSession`: the session as `encodeSession` encodes it, where the caller has
   * it (a session a worker built crosses encoded, and encoding its decoded copy gives the same
   * bytes).
   */
  store(
    key: string,
    paths: readonly string[],
    stampsBefore: readonly (FileStamp | null)[],
    owner: string,
    session: Session,
    claimed: readonly string[],
    encodedSession?: EncodedSession,
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
    const encoded: EncodedSession = encodedSession ?? encodeSession(session);
    const claims = encodeClaims(claimed);
    // Offsets and checks are set when the pack is written.
    const blob: Blob = [0, 0, 0];
    if (encoded.kind === 'json') {
      this.kept.push({
        stored: { key, files, owner, claims: blob, kind: 'json', whole: blob },
        eager: [claims, encoded.whole],
        items: null,
      });
      return;
    }
    const { head, strings, requests, items } = encoded;
    this.kept.push({
      stored: { key, files, owner, claims: blob, kind: 'columns', head, strings, requests: blob, items: blob },
      eager: [claims, requests],
      items,
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
    const fd = this.old.fd;
    // A read still running on the thread pool must not find the number reused by another file.
    if (this.readingFile && this.reading !== null)
      void this.reading.then(() => {
        try {
          closeSync(fd);
        } catch {
          // Closed already: nothing to release.
        }
      });
    else closeSync(fd);
    this.old = null;
  }

  private async write(): Promise<void> {
    const old = this.old;
    const served = (position: number): StoredSession | null => old?.index.sessions[position] ?? null;
    const freshBytes = this.kept.reduce<number>(
      (sum, entry) =>
        typeof entry === 'number'
          ? sum
          : sum + entry.eager[0].length + entry.eager[1].length + (entry.items?.length ?? 0) + 3 * ALIGN,
      0,
    );
    // Live bytes: what every kept session references (the index is rewritten either way).
    const liveBytes = this.kept.reduce<number>((sum, entry) => {
      if (typeof entry !== 'number') return sum;
      const stored = served(entry);
      if (stored === null) return sum;
      const blobs =
        stored.kind === 'json' ? [stored.claims, stored.whole] : [stored.claims, stored.requests, stored.items];
      return sum + blobs.reduce((bytes, blob) => bytes + blob[1], 0);
    }, freshBytes);
    const appendable =
      old !== null &&
      old.header.algorithm === CHECK_ALGORITHM &&
      old.index.eager.length < MAX_SEGMENTS &&
      old.size + freshBytes <= 2 * liveBytes + HEADER_PROBE;
    if (appendable && (await this.append(old, served))) return;
    await this.writeWhole(served);
  }

  /**
   * Appends one segment to the pack read (the sessions built in this run, then the new index and
   * its trailer); false when the file is no longer the one read (then it is written whole).
   */
  private async append(old: Loaded, served: (position: number) => StoredSession | null): Promise<boolean> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.path, 'a');
    } catch {
      return false;
    }
    try {
      const now = await handle.stat();
      // Another run renamed a pack over it, or appended to it: not the file whose offsets this run knows.
      if (now.dev !== old.dev || now.ino !== old.ino || now.size !== old.size) return false;
      const segment = new Segment(old.size);
      // Served sessions' blobs stay where they are.
      const sessions = this.placeKept(segment, served);
      // This segment's region check is taken by `finish`.
      const eager = [...old.index.eager, [segment.start, segment.eager.bytes, 0] as const];
      // Written as one call: a run killed in it leaves a file without this trailer at its end.
      await handle.writev(segment.finish(this.index(eager, sessions)));
      return true;
    } finally {
      await handle.close();
    }
  }

  /**
   * The next pack's sessions in order: those built in this run placed in `segment`, each served one
   * as `served` gives it (null: left out).
   */
  private placeKept(segment: Segment, served: (position: number) => StoredSession | null): StoredSession[] {
    const sessions: StoredSession[] = [];
    for (const entry of this.kept) {
      const stored = typeof entry === 'number' ? served(entry) : segment.placeFresh(entry);
      if (stored !== null) sessions.push(stored);
    }
    return sessions;
  }

  /** The index of the next pack (this run's outcomes and `sessions`). */
  private index(eager: Index['eager'], sessions: StoredSession[]): Index {
    const files = [...this.outcomes].map(([path, [stamp, value]]) => [path, ...stamp, value] as const);
    return { writtenAtMs: this.cache.nowMs, eager, files, sessions };
  }

  /** Writes the pack whole, to a temp file renamed over it; served sessions' blobs are copied with their checks. */
  private async writeWhole(served: (position: number) => StoredSession | null): Promise<void> {
    const old = this.old;
    if (old !== null && this.kept.some((entry) => typeof entry === 'number'))
      this.whole ??= readAt(old.fd, old.size, 0);
    const header: Header = {
      magic: MAGIC,
      fingerprint: this.cache.fingerprint,
      key: this.key,
      algorithm: CHECK_ALGORITHM,
    };
    const headerLine = Buffer.from(`${padTo(JSON.stringify(header), 1)}\n`);
    const segment = new Segment(headerLine.length);
    // Copied as stored, unchecked: its check goes with it, and whoever reads it checks it.
    const copy = (blob: Blob): Buffer => this.eagerBlob(blob) ?? this.lazyBlob(blob) ?? Buffer.alloc(0);
    const sessions = this.placeKept(segment, (position) => {
      const stored = served(position);
      if (stored === null) return null;
      const claims = segment.place(segment.eager, copy(stored.claims), stored.claims[2]);
      if (stored.kind === 'json')
        return { ...stored, claims, whole: segment.place(segment.eager, copy(stored.whole), stored.whole[2]) };
      const requests = segment.place(segment.eager, copy(stored.requests), stored.requests[2]);
      const items = segment.place(segment.lazy, copy(stored.items), stored.items[2]);
      return { ...stored, claims, requests, items };
    });
    const parts = segment.finish(this.index([[segment.start, segment.eager.bytes, 0]], sessions));
    const temp = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      const handle = await open(temp, 'w');
      try {
        await handle.writev([headerLine, ...parts]);
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

/** Whether every value is a whole number ≥ 0 (offsets and lengths read from a pack). */
function wholeNumbers(...values: unknown[]): boolean {
  return values.every((value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0);
}

/**
 * One segment being laid out from file offset `start`: its eager and lazy regions (each blob
 * 8-aligned in the file), then its index and trailer (`finish`).
 */
class Segment {
  readonly eager = { parts: [] as Buffer[], bytes: 0, relative: [] as [blob: Blob, at: number][] };
  readonly lazy = { parts: [] as Buffer[], bytes: 0, relative: [] as [blob: Blob, at: number][] };

  constructor(readonly start: number) {}

  /**
   * Places a blob in a region and returns it with its region offset (made a file offset by
   * `finish`, once the eager region's length is known); a new blob's check is computed, a copied one's kept.
   */
  place(into: Segment['eager'], bytes: Buffer, check: Check | null): Blob {
    const blob: [number, number, Check] = [into.bytes, bytes.length, check ?? checkOf(bytes, CHECK_ALGORITHM) ?? 0];
    into.relative.push([blob, into.bytes]);
    into.parts.push(bytes);
    into.bytes += bytes.length;
    const pad = (ALIGN - (into.bytes % ALIGN)) % ALIGN;
    if (pad > 0) {
      into.parts.push(Buffer.alloc(pad));
      into.bytes += pad;
    }
    return blob;
  }

  /** Places the blobs of a session built in this run. */
  placeFresh({ stored, eager: [claims, body], items }: Fresh): StoredSession {
    const claimsBlob = this.place(this.eager, claims, null);
    if (stored.kind === 'json') return { ...stored, claims: claimsBlob, whole: this.place(this.eager, body, null) };
    const requests = this.place(this.eager, body, null);
    return { ...stored, claims: claimsBlob, requests, items: this.place(this.lazy, items ?? Buffer.alloc(0), null) };
  }

  /** The segment's bytes: its regions, its index, its trailer (blob offsets made file offsets first). */
  finish(index: Index): Buffer[] {
    for (const [blob, at] of this.eager.relative) (blob as [number, number, Check])[0] = this.start + at;
    for (const [blob, at] of this.lazy.relative)
      (blob as [number, number, Check])[0] = this.start + this.eager.bytes + at;
    const regionCheck = checker(CHECK_ALGORITHM);
    for (const part of this.eager.parts) regionCheck.update(part);
    const eager = index.eager.map(([at, bytes, check]) =>
      at === this.start ? ([at, this.eager.bytes, regionCheck.value() ?? 0] as const) : ([at, bytes, check] as const),
    );
    // Padded with spaces so that every segment, and so every blob, starts 8-aligned in the file
    // (requests are viewed as a Float64Array in place).
    // The padding is a part of its own: padding the JSON text first measured its UTF-8 length and
    // copied it again (~3 ms of a re-run that appends, for an index of ~700 KB).
    const indexJson = Buffer.from(JSON.stringify({ ...index, eager } satisfies Index));
    const indexPadding = Buffer.alloc((ALIGN - (indexJson.length % ALIGN)) % ALIGN, ' ');
    const indexCheck = checker(CHECK_ALGORITHM);
    indexCheck.update(indexJson);
    indexCheck.update(indexPadding);
    const trailer: Trailer = {
      tag: TRAILER_TAG,
      start: this.start,
      eagerBytes: this.eager.bytes,
      lazyBytes: this.lazy.bytes,
      indexBytes: indexJson.length + indexPadding.length,
      index: indexCheck.value() ?? 0,
    };
    const text = JSON.stringify(trailer);
    if (Buffer.byteLength(text) >= TRAILER_BYTES) throw new Error('run pack: trailer too long');
    const trailerBytes = Buffer.from(`${text}${' '.repeat(TRAILER_BYTES - 1 - Buffer.byteLength(text))}\n`);
    return [...this.eager.parts, ...this.lazy.parts, indexJson, indexPadding, trailerBytes];
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

/** The bytes of a blob in the region it lies in (`regionOf`). */
function blobIn(region: Region, blob: Blob): Buffer {
  const at = blob[0] - region.start;
  return region.bytes.subarray(at, at + blob[1]);
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

/** Whether one of `hashes` is in `set` (a plain loop: a grown run checks every served session's hashes). */
function anyIn(hashes: Uint32Array, set: ReadonlySet<number>): boolean {
  for (let i = 0; i < hashes.length; i += 1) if (set.has(hashes[i] ?? 0)) return true;
  return false;
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
