/**
 * What a parse worker does (`parse-worker.ts` starts it; `parse-ahead.ts` is the main thread's
 * side): it reads the transcripts it is sent, one after another, with the same `readEntries` as the
 * main thread, and posts each one's entries in batches. Every batch takes a credit from a counter
 * shared with the main thread, which gives it back once it has used the batch: a worker that is
 * `CREDITS` batches ahead waits (blocking only itself), so a 1 GB transcript is never held whole.
 */
import { errorMessage } from '../../session/errors.js';
import type { ContentMode } from '../content-mode.js';
import type { ParseCache } from '../parse-cache.js';
import { type EncodedEntries, EntryWriter } from './entry-codec.js';
import { readEntries } from './read-entries.js';

/** Main thread → worker: a transcript to read. */
export type ParseJob = {
  readonly id: number;
  readonly file: string;
  readonly content: ContentMode;
  readonly cache: ParseCache | null;
};

/**
 * Worker → main thread: entries of a job, in line order (`entry-codec.ts`). The last batch of a job
 * has `end`: with the message of the error that stopped the read (after the entries read before
 * it), or null.
 */
export type ParseBatch = {
  readonly id: number;
  readonly entries: EncodedEntries;
  readonly end: { readonly failure: string | null } | null;
};

/**
 * Data a worker starts with: the credit counter (one Int32) shared with the main thread; with
 * `builds`, the worker builds whole sessions instead (`build-jobs.ts`, no credits).
 */
export type ParseWorkerData = { readonly credits: SharedArrayBuffer; readonly builds?: boolean };

/** Entries per batch: large enough that a message costs little per entry, small enough to stream. */
export const BATCH_ENTRIES = 1024;
/** Batches a worker may have posted that the main thread has not used yet. */
export const CREDITS = 16;

/** Where a worker's jobs come from and its batches go (a `MessagePort`, or a wrapper in tests). */
export type JobPort = {
  on(event: 'message', listener: (job: ParseJob) => void): unknown;
  postMessage(batch: ParseBatch, transfer: ArrayBuffer[]): void;
};

/** Serves jobs arriving on `port`, in the order they arrive. */
export function serveParseJobs(port: JobPort, data: ParseWorkerData): void {
  const credits = new Int32Array(data.credits);
  const acquire = (): void => {
    while (Atomics.load(credits, 0) <= 0) Atomics.wait(credits, 0, 0);
    Atomics.sub(credits, 0, 1);
  };
  const run = async (job: ParseJob): Promise<void> => {
    const writer = new EntryWriter();
    const post = (end: ParseBatch['end']): void => {
      acquire();
      const entries = writer.take();
      port.postMessage({ id: job.id, entries, end }, [entries.numbers.buffer, entries.strings.buffer]);
    };
    let failure: string | null = null;
    try {
      await readEntries(job.file, job.content, job.cache, (entry) => {
        writer.write(entry);
        if (writer.count >= BATCH_ENTRIES) post(null);
      });
    } catch (error) {
      failure = errorMessage(error);
    }
    post({ failure });
  };
  let queue = Promise.resolve();
  port.on('message', (job) => {
    // A failure of `run` itself (not of the read: that is posted) ends the worker, and the main
    // thread reads what it had sent it.
    queue = queue.then(() => run(job));
  });
}
