/**
 * Reading one Claude Code transcript into line entries, the same way in the main thread and in a
 * parse worker (`parse-worker.ts`): through the parse cache when there is one, else streamed.
 */
import type { ContentMode } from '../content-mode.js';
import { forEachLineEntry, type ParseCache, readLinesCached } from '../parse-cache.js';
import { type LineEntry, lineParser } from './line-entry.js';

/**
 * Hands every entry of `file` to `use`, in line order. Without a cache (and in text mode, never
 * cached: only character counts are, text mode would store the logs' content a second time)
 * entries are handed over as each line is parsed; through the cache, once the file is read. A
 * read error rejects after the entries read before it were handed over.
 */
export async function readEntries(
  file: string,
  content: ContentMode,
  cache: ParseCache | null,
  use: (entry: LineEntry) => void,
): Promise<void> {
  const parser = lineParser(content);
  if (content === 'text' || cache === null) {
    await forEachLineEntry(file, parser, use);
    return;
  }
  const entries: LineEntry[] = [];
  try {
    await readLinesCached(file, parser, cache, entries);
  } finally {
    for (const entry of entries) use(entry);
  }
}
