/**
 * Atomic file output: write a temporary file in the destination's directory, then rename it over
 * the destination, so a reader never sees a half-written report and a failed write leaves the
 * previous file intact (rename is atomic within one POSIX filesystem). Temporary names, symbolic
 * link targets and stale-file cleanup are `cost/output-path.ts`'s.
 */
import { open, rename, rm } from 'node:fs/promises';
import { outputTarget, removeStaleTemps, tempPathFor, writeFailure } from '../cost/output-path.js';
import { CachecostError } from '../session/errors.js';

/** Content to write: one string, or chunks produced lazily (a large CSV is never one string). */
export type FileContent = string | Iterable<string> | AsyncIterable<string>;

/**
 * Writes `content` to `path` atomically (temp file in the same directory + rename); an I/O
 * failure becomes `CachecostError('IO_ERROR')` naming the path, and the temp file is removed. A
 * symbolic link at `path` is written through: the file it points to is replaced, the link stays.
 */
export async function writeFileAtomic(path: string, content: FileContent): Promise<void> {
  let tempPath = '';
  try {
    const target = await outputTarget(path);
    tempPath = tempPathFor(target);
    await removeStaleTemps(target);
    const handle = await open(tempPath, 'wx');
    try {
      for await (const chunk of typeof content === 'string' ? [content] : content) {
        await handle.write(chunk);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tempPath, target);
  } catch (error) {
    if (tempPath !== '') await rm(tempPath, { force: true });
    throw new CachecostError('IO_ERROR', `cannot write ${path}: ${writeFailure(error, path, tempPath)}`, {
      cause: error,
    });
  }
}
