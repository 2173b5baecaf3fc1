/**
 * Line streaming for JSONL logs: files are read as Buffer chunks and split on `\n` bytes, so a
 * 1 GB `messages.jsonl` is never one string (only one line at a time is decoded). Splitting on
 * the byte is safe for UTF-8: 0x0A never occurs inside a multi-byte sequence.
 */
import { createReadStream } from 'node:fs';

/** One line of a file: 1-based number, text without its `\n` (and without a trailing `\r`). */
export type Line = {
  readonly number: number;
  readonly text: string;
  /** False only for a last line that has no `\n` after it (a parse failure there means truncation). */
  readonly terminated: boolean;
};

/** A line as read from a file, with where it ends. */
export type FileLine = Line & {
  /** Byte offset in the file just after this line's `\n` (after its last byte when unterminated). */
  readonly endOffset: number;
};

/** Where a read resumes: the byte offset of a line start and the number of lines before it. */
export type LineStart = { readonly offset: number; readonly linesBefore: number };

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const READ_CHUNK_BYTES = 1 << 20;

function decode(parts: readonly Buffer[], totalBytes: number, number: number): string {
  let bytes = parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, totalBytes);
  if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) bytes = bytes.subarray(0, bytes.length - 1);
  const text = bytes.toString('utf8');
  // A UTF-8 byte order mark would otherwise make the first line unparseable.
  return number === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Splits a stream of byte chunks into lines, lazily: a line is yielded as soon as its `\n` has
 * been read, and at most one partial line is buffered between chunks.
 */
export async function* linesFromChunks(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Line> {
  for await (const line of fileLinesFromChunks(chunks))
    yield { number: line.number, text: line.text, terminated: line.terminated };
}

/** `linesFromChunks` for chunks read from `from` in a file: each line also says where it ends. */
export async function* fileLinesFromChunks(
  chunks: AsyncIterable<Uint8Array>,
  from: LineStart = { offset: 0, linesBefore: 0 },
): AsyncGenerator<FileLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = from.linesBefore;
  let chunkOffset = from.offset;
  for await (const raw of chunks) {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    let start = 0;
    let end = chunk.indexOf(NEWLINE, start);
    while (end !== -1) {
      number += 1;
      pending.push(chunk.subarray(start, end));
      yield {
        number,
        text: decode(pending, pendingBytes + end - start, number),
        terminated: true,
        endOffset: chunkOffset + end + 1,
      };
      pending = [];
      pendingBytes = 0;
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      // Copy the partial tail: a producer may reuse its chunk buffer for the next read.
      pending.push(Buffer.from(chunk.subarray(start)));
      pendingBytes += chunk.length - start;
    }
    chunkOffset += chunk.length;
  }
  if (pendingBytes > 0) {
    number += 1;
    yield { number, text: decode(pending, pendingBytes, number), terminated: false, endOffset: chunkOffset };
  }
}

/** Streams the lines of a file (see `linesFromChunks`); a read error rejects the iteration. */
export function readLines(path: string): AsyncGenerator<Line> {
  return linesFromChunks(createReadStream(path, { highWaterMark: READ_CHUNK_BYTES }));
}

/**
 * `readLines` with where each line ends; `from` resumes at a line start (an incremental re-read of
 * a grown file): numbering continues from there.
 */
export function readFileLines(path: string, from?: LineStart): AsyncGenerator<FileLine> {
  return fileLinesFromChunks(
    createReadStream(path, { highWaterMark: READ_CHUNK_BYTES, start: from?.offset ?? 0 }),
    from,
  );
}
