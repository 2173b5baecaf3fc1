/**
 * Atomic file output: write a temporary file in the destination's directory, then rename it over
 * the destination, so a reader never sees a half-written report and a failed write leaves the
 * previous file intact (rename is atomic within one POSIX filesystem).
 */
import { randomUUID } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CachecostError, errorMessage } from '../session/errors.js';

/** Content to write: one string, or chunks produced lazily (a large CSV is never one string). */
export type FileContent = string | Iterable<string> | AsyncIterable<string>;

/**
 * Writes `content` to `path` atomically (temp file in the same directory + rename); an I/O
 * failure becomes `CachecostError('IO_ERROR')` naming the path, and the temp file is removed.
 */
export async function writeFileAtomic(path: string, content: FileContent): Promise<void> {
  const tempPath = join(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    const handle = await open(tempPath, 'wx');
    try {
      for await (const chunk of typeof content === 'string' ? [content] : content) {
        await handle.write(chunk);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tempPath, path);
  } catch (error) {
    await rm(tempPath, { force: true });
    const reason = errorMessage(error);
    throw new CachecostError('IO_ERROR', `cannot write ${path}: ${reason}`, { cause: error });
  }
}
