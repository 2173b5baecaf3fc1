/**
 * Line streaming for JSONL logs: files are read as Buffer chunks and split on `\n` bytes, so a
 * 1 GB `messages.jsonl` is never one string (only one line at a time is decoded). Splitting on
 * the byte is safe for UTF-8: 0x0A never occurs inside a multi-byte sequence.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { emptyObjectArray } from '../session/packed-array.js';

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
  const bytes = parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, totalBytes);
  return decodeRange(bytes, 0, bytes.length, number);
}

/** Line `number`'s text from `chunk[start, end)`: without a trailing `\r`, and without a byte order mark on line 1. */
function decodeRange(chunk: Buffer, start: number, end: number, number: number): string {
  const stop = end > start && chunk[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
  const text = chunk.toString('utf8', start, stop);
  // A UTF-8 byte order mark would otherwise make the first line unparseable.
  return number === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Splits byte chunks into lines: `lines` yields each line a chunk completes as soon as its `\n`
 * is reached, `rest` the unterminated last line. At most one partial line is held between chunks,
 * copied: the producer may reuse its chunk buffer once `lines` has finished with it.
 */
class LineSplitter {
  /** The start of a line that continues in the next chunk (copied); never holds a line of no bytes. */
  private pending: Buffer[] = emptyObjectArray();
  private pendingBytes = 0;
  private number: number;
  private chunkOffset: number;

  constructor(from: LineStart) {
    this.number = from.linesBefore;
    this.chunkOffset = from.offset;
  }

  *lines(chunk: Buffer): Generator<FileLine> {
    let start = 0;
    let end = chunk.indexOf(NEWLINE, start);
    while (end !== -1) {
      this.number += 1;
      let text: string;
      if (this.pendingBytes === 0) {
        // The whole line is in this chunk (most are): decoded in place, no view or list made for it.
        text = decodeRange(chunk, start, end, this.number);
      } else {
        this.pending.push(chunk.subarray(start, end));
        text = decode(this.pending, this.pendingBytes + end - start, this.number);
        this.pending = emptyObjectArray();
        this.pendingBytes = 0;
      }
      yield { number: this.number, text, terminated: true, endOffset: this.chunkOffset + end + 1 };
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      this.pending.push(Buffer.from(chunk.subarray(start)));
      this.pendingBytes += chunk.length - start;
    }
    this.chunkOffset += chunk.length;
  }

  rest(): FileLine | null {
    if (this.pendingBytes === 0) return null;
    this.number += 1;
    return {
      number: this.number,
      text: decode(this.pending, this.pendingBytes, this.number),
      terminated: false,
      endOffset: this.chunkOffset,
    };
  }
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
  const splitter = new LineSplitter(from);
  for await (const raw of chunks) {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    for (const line of splitter.lines(chunk)) yield line;
  }
  const rest = splitter.rest();
  if (rest !== null) yield rest;
}

/**
 * The lines of a file (as `linesFromChunks` splits them), read synchronously chunk by chunk into
 * one reused buffer (`readSync`): no stream, no promise per line, and no wait for the thread pool
 * between chunks, where a command reads its logs one after another anyway (the FreeCode, Codex and
 * OpenHands adapters; Claude Code's has `scanFileLines`). Through a stream, `report` on the 101 MB
 * FreeCode benchmark corpus took ≈ 2.0 s, ≈ 1.46 s this way (`bench/README.md`, sim13). Only the
 * lines the caller has taken are split; a read error is thrown by the iteration.
 */
export function* readLinesSync(path: string, options: { readonly chunkBytes?: number } = {}): Generator<Line> {
  const chunkBytes = options.chunkBytes ?? READ_CHUNK_BYTES;
  const fd = openSync(path, 'r');
  const buffer = takeBuffer(chunkBytes);
  try {
    const splitter = new LineSplitter({ offset: 0, linesBefore: 0 });
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      for (const line of splitter.lines(buffer.subarray(0, bytesRead)))
        yield { number: line.number, text: line.text, terminated: line.terminated };
    }
    const rest = splitter.rest();
    if (rest !== null) yield { number: rest.number, text: rest.text, terminated: rest.terminated };
  } finally {
    closeSync(fd);
    returnBuffer(buffer, chunkBytes);
  }
}

/**
 * The lines of a file streamed (`linesFromChunks`) with where each line ends; `from` resumes at a
 * line start (an incremental re-read of a grown file): numbering continues from there.
 */
export function readFileLines(path: string, from?: LineStart): AsyncGenerator<FileLine> {
  return fileLinesFromChunks(
    createReadStream(path, { highWaterMark: READ_CHUNK_BYTES, start: from?.offset ?? 0 }),
    from,
  );
}

/** A line as `scanFileLines` hands it over: where its bytes are (valid only during the call) and where it ends. */
export type RawLine = {
  readonly number: number;
  /** The read buffer, reused after the call returns: the line is `buffer[start, end)`, without its `\n`. */
  readonly buffer: Buffer;
  readonly start: number;
  readonly end: number;
  readonly terminated: boolean;
  readonly endOffset: number;
};

/**
 * The text of a raw line, as `readLinesSync` gives it (no trailing `\r`, no byte order mark on line 1):
 * the bytes between `rawLineStart` and `rawLineEnd`, decoded in place (the BOM's three bytes are
 * exactly what decodes to the U+FEFF `decode` drops).
 */
export function rawLineText(line: RawLine): string {
  return line.buffer.toString('utf8', rawLineStart(line), rawLineEnd(line));
}

/** Where a raw line's text starts in its buffer: after a UTF-8 byte order mark on line 1 (as `rawLineText`). */
export function rawLineStart(line: RawLine): number {
  const { buffer, start, end } = line;
  const bom = line.number === 1 && end - start >= 3 && buffer[start] === 0xef && buffer[start + 1] === 0xbb;
  return bom && buffer[start + 2] === 0xbf ? start + 3 : start;
}

/** Where a raw line's text ends in its buffer: before one trailing `\r` (as `rawLineText`). */
export function rawLineEnd(line: RawLine): number {
  return line.end > line.start && line.buffer[line.end - 1] === CARRIAGE_RETURN ? line.end - 1 : line.end;
}

/**
 * Bytes read at a time by `scanFileLines` (a longer line grows the buffer). Small enough that a
 * chunk is still in the CPU's cache when its lines are parsed right after the read: with 4 MB
 * chunks the same parse took 10–15% more CPU time on copies of real transcripts.
 */
const SCAN_CHUNK_BYTES = 256 << 10;

/**
 * Bytes of lines decoded into one string by `scanFileLines`. A string of 128 KB or more is a large
 * object to V8: its own pages, mapped for it and unmapped at the next collection. Decoding a
 * 256 KB chunk whole cost 5-7x as much as decoding it in 32 KB pieces (Claude Code's real logs:
 * 41-47 against 6-7 ms per 5.6 MB; bench/README.md). A piece of 32 KB stays under that size even
 * as a two-byte string (any character beyond Latin-1 makes one). A longer line is decoded alone.
 */
const DECODE_PIECE_BYTES = 32 << 10;

/**
 * The read buffer of the last scan, handed to the next one: a fresh buffer per file (4 MB then) made
 * the kernel fault in new pages on every read, which cost several times the reads themselves over
 * hundreds of small transcripts. Null while a scan holds it (a scan started from inside another
 * scan's callback gets a buffer of its own); a buffer grown past `KEPT_BUFFER_MAX` for one long
 * line is not kept.
 */
let spareBuffer: Buffer | null = null;
const KEPT_BUFFER_MAX = 64 << 20;

function takeBuffer(bytes: number): Buffer {
  const spare = spareBuffer;
  if (spare !== null && spare.length === bytes) {
    spareBuffer = null;
    return spare;
  }
  return Buffer.allocUnsafe(bytes);
}

function returnBuffer(buffer: Buffer, chunkBytes: number): void {
  if (buffer.length === chunkBytes && buffer.length <= KEPT_BUFFER_MAX) spareBuffer = buffer;
}

/** `decode`: hand each line's text too (default true); the sizes are for tests. */
type ScanOptions = {
  readonly decode?: boolean;
  readonly chunkBytes?: number;
  readonly decodePieceBytes?: number;
};

/**
 * Calls `onLine` for every line of a file (from a line start, numbering continuing from there),
 * chunk by chunk: whole chunks are read into one buffer and split with `indexOf`, with no stream,
 * no per-line promise and no per-line buffer. With `decode`, each line's text is cut from one
 * decoding of a run of the chunk's complete lines (`DECODE_PIECE_BYTES`; the same text as decoding
 * each line alone: `\n` never occurs inside a UTF-8 sequence, so an invalid sequence ends at a
 * line's end either way).
 * The reads are synchronous: a command reads its logs one after another, and on a busy machine a
 * round trip through the thread pool per read cost more than the reads. A read error rejects.
 */
export async function scanFileLines(
  path: string,
  onLine: (line: RawLine, text: string) => void,
  from: LineStart = { offset: 0, linesBefore: 0 },
  options: ScanOptions = {},
): Promise<void> {
  await Promise.resolve();
  scanFileLinesSync(path, onLine, from, options);
}

function scanFileLinesSync(
  path: string,
  onLine: (line: RawLine, text: string) => void,
  from: LineStart,
  options: ScanOptions,
): void {
  const decodeText = options.decode ?? true;
  const pieceBytes = options.decodePieceBytes ?? DECODE_PIECE_BYTES;
  const fd = openSync(path, 'r');
  const chunkBytes = options.chunkBytes ?? SCAN_CHUNK_BYTES;
  let buffer = takeBuffer(chunkBytes);
  try {
    /** Bytes of an unfinished line kept at the start of the buffer. */
    let carried = 0;
    let bufferOffset = from.offset;
    let number = from.linesBefore;
    for (;;) {
      if (carried === buffer.length) {
        const bigger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(bigger, 0, 0, carried);
        buffer = bigger;
      }
      const bytesRead = readSync(fd, buffer, carried, buffer.length - carried, bufferOffset + carried);
      if (bytesRead === 0) break;
      const length = carried + bytesRead;
      const view = buffer.subarray(0, length);
      const last = view.lastIndexOf(NEWLINE);
      let start = 0;
      if (last !== -1) {
        // The complete lines are decoded a piece at a time (`DECODE_PIECE_BYTES`), each piece ending
        // at a line's end, and each line's text is cut from its piece.
        let text = '';
        let pieceEnd = 0;
        let textStart = 0;
        let end = view.indexOf(NEWLINE, carried);
        while (end !== -1) {
          number += 1;
          let lineText = '';
          if (decodeText) {
            if (start >= pieceEnd) {
              const limit = start + pieceBytes;
              // The last line end within the limit, or this line's end when it is longer.
              pieceEnd = limit > last ? last + 1 : Math.max(end, view.lastIndexOf(NEWLINE, limit - 1)) + 1;
              text = view.toString('utf8', start, pieceEnd);
              textStart = 0;
            }
            const textEnd = text.indexOf('\n', textStart);
            lineText = lineTextOf(text, textStart, textEnd, number);
            textStart = textEnd + 1;
          }
          onLine({ number, buffer, start, end, terminated: true, endOffset: bufferOffset + end + 1 }, lineText);
          start = end + 1;
          end = start > last ? -1 : view.indexOf(NEWLINE, start);
        }
      }
      carried = length - start;
      if (start > 0 && carried > 0) buffer.copy(buffer, 0, start, length);
      bufferOffset += start;
    }
    if (carried > 0) {
      number += 1;
      const line = { number, buffer, start: 0, end: carried, terminated: false, endOffset: bufferOffset + carried };
      onLine(line, decodeText ? rawLineText(line) : '');
    }
  } finally {
    closeSync(fd);
    returnBuffer(buffer, chunkBytes);
  }
}
/** `text[start, end)` without a trailing `\r`, and without a byte order mark on line 1 (as `decode`). */
function lineTextOf(text: string, start: number, end: number, number: number): string {
  let stop = end;
  if (stop > start && text.charCodeAt(stop - 1) === 0x0d) stop -= 1;
  let begin = start;
  if (number === 1 && stop > begin && text.charCodeAt(begin) === 0xfeff) begin += 1;
  return text.slice(begin, stop);
}
