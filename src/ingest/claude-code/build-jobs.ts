/**
 * What a build worker does (`parse-worker.ts` starts it in this mode; `build-ahead.ts` is the main
 * thread's side): it reads and builds the whole sessions it is sent, one after another, with the
 * same `buildSession` as the main thread, and posts each built session encoded by the run pack's
 * codec (`session-codec.ts`: request columns and the items' JSON text, bytes that are moved, not
 * copied, and decoded lazily). Responses are claimed in a map of the session's own: the keys it
 * asked for go back with it, and the main thread keeps the session only when no session before it
 * in the run holds one of them (else it builds it again against the run's map).
 */
import { errorMessage } from '../../session/errors.js';
import type { Session } from '../../session/model.js';
import type { ContentMode } from '../content-mode.js';
import type { ParseCache } from '../parse-cache.js';
import { encodeSession, type EncodedSession } from '../session-codec.js';
import type { ClaudeSessionFiles } from './discover.js';
import { buildSession } from './read-session.js';

/** Main thread → worker: a session to build. */
export type BuildJob = {
  readonly id: number;
  readonly files: ClaudeSessionFiles;
  readonly content: ContentMode;
  readonly cache: ParseCache | null;
};

/**
 * Main thread → worker, once, before its jobs: who builds each job, shared with the main thread
 * (index = job id): `UNOWNED` until the worker (`WORKER_OWNS`) or the run (`RUN_OWNS`) takes it by
 * compare-and-swap, so that a job the run reached before the worker started it is built once, by
 * the run. Sent once rather than with each job: a shared buffer costs each message ≈ 10–30 µs to
 * clone on either side, against 2–3 µs for a job without one.
 */
export type BuildOwners = { readonly owners: Int32Array };

/** What a build worker receives: its `BuildOwners` first, then jobs. */
export type BuildMessage = BuildJob | BuildOwners;

/** A job's entry in `BuildOwners.owners`. */
export const UNOWNED = 0;
export const WORKER_OWNS = 1;
export const RUN_OWNS = 2;

/** A session built without the run's claims, and the response keys it asked for, in order. */
export type BuiltSession<S> = { readonly session: S; readonly asked: readonly string[] };

/**
 * Strings as one text and where each ends: one string crosses between threads for the price of a
 * copy, where an array of them is cloned string by string (a session's response keys, tens of
 * thousands in a large run: ~130 ms to post on the worker, and again to receive).
 */
export type PackedKeys = { readonly text: string; readonly ends: Uint32Array<ArrayBuffer> };

/** `keys` packed (`PackedKeys`). */
export function packKeys(keys: readonly string[]): PackedKeys {
  const ends = new Uint32Array(keys.length);
  let end = 0;
  for (let i = 0; i < keys.length; i += 1) {
    end += keys[i]?.length ?? 0;
    ends[i] = end;
  }
  return { text: keys.join(''), ends };
}

/** The strings `packKeys` packed, in order. */
export function unpackKeys(packed: PackedKeys): string[] {
  const keys: string[] = new Array<string>(packed.ends.length);
  let start = 0;
  for (let i = 0; i < packed.ends.length; i += 1) {
    const end = packed.ends[i] ?? start;
    keys[i] = packed.text.slice(start, end);
    start = end;
  }
  return keys;
}

/** A built session as a worker posts it: encoded, with the keys it asked for packed. */
export type PostedBuild = { readonly session: EncodedSession; readonly asked: PackedKeys };

/**
 * Worker → main thread: the built session, or the message of the error that stopped the build
 * (both null: the run had claimed the job, the worker left it).
 */
export type BuildResult = {
  readonly id: number;
  readonly built: PostedBuild | null;
  readonly failure: string | null;
};

/**
 * Response claims of one session built alone: every key is unclaimed until the session claims it,
 * as in a run where no session before it holds one; the keys asked for are recorded in order.
 */
export class AskedClaims extends Map<string, string> {
  readonly asked: string[] = [];

  override get(key: string): string | undefined {
    this.asked.push(key);
    return super.get(key);
  }
}

/** Builds the session of `job` alone (see `AskedClaims`). */
export async function buildAlone(
  files: ClaudeSessionFiles,
  content: ContentMode,
  cache: ParseCache | null,
): Promise<BuiltSession<Session>> {
  const claims = new AskedClaims();
  const session = await buildSession(files, content, cache, null, claims);
  return { session, asked: claims.asked };
}

/** Where a worker's jobs come from and its results go (a `MessagePort`, or a wrapper in tests). */
export type BuildPort = {
  on(event: 'message', listener: (message: BuildMessage) => void): unknown;
  postMessage(result: BuildResult, transfer: ArrayBuffer[]): void;
};

/** `bytes` as a view of a whole buffer of its own (a small Buffer is a view of Node's shared pool: never moved). */
function ownBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  return whole && bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

/** The encoded session with each blob a whole buffer of its own, and those buffers (to move them). */
function movable(encoded: EncodedSession): { readonly encoded: EncodedSession; readonly buffers: ArrayBuffer[] } {
  if (encoded.kind === 'json') {
    const whole = ownBuffer(encoded.whole);
    return { encoded: { kind: 'json', whole: whole as Buffer }, buffers: [whole.buffer] };
  }
  const requests = ownBuffer(encoded.requests);
  const items = ownBuffer(encoded.items);
  return {
    encoded: { ...encoded, requests: requests as Buffer, items: items as Buffer },
    buffers: requests.buffer === items.buffer ? [requests.buffer] : [requests.buffer, items.buffer],
  };
}

/** Serves jobs arriving on `port`, in the order they arrive. */
export function serveBuildJobs(port: BuildPort): void {
  let owners: Int32Array | null = null;
  const run = async (job: BuildJob): Promise<void> => {
    // Without the owners (never sent), the job is left to the run, as one the run had claimed.
    if (owners === null || Atomics.compareExchange(owners, job.id, UNOWNED, WORKER_OWNS) !== UNOWNED) {
      port.postMessage({ id: job.id, built: null, failure: null }, []);
      return;
    }
    let result: BuildResult;
    let buffers: ArrayBuffer[] = [];
    try {
      const { session, asked } = await buildAlone(job.files, job.content, job.cache);
      const moved = movable(encodeSession(session));
      const keys = packKeys(asked);
      buffers = [...moved.buffers, keys.ends.buffer];
      result = { id: job.id, built: { session: moved.encoded, asked: keys }, failure: null };
    } catch (error) {
      result = { id: job.id, built: null, failure: errorMessage(error) };
    }
    port.postMessage(result, buffers);
  };
  let queue = Promise.resolve();
  port.on('message', (message) => {
    if ('owners' in message) {
      owners = message.owners;
      return;
    }
    // A failure of `run` itself ends the worker; the main thread builds what it had sent it.
    queue = queue.then(() => run(message));
  });
}
