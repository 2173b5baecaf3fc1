/**
 * Line entries in a compact form for moving them between threads (`parse-jobs.ts` →
 * `parse-ahead.ts`). A structured clone of the entries themselves (a dozen small objects and
 * strings per line) cost about half of what parsing the lines cost, in the worker and again in the
 * main thread (README, performance). Here assistant and user records, almost every entry, become
 * numbers in one `Float64Array` and their strings one buffer of bytes (both transferred, not
 * copied: a posted string is copied at ~1 ns per byte), and are built again as object literals
 * of the same shape. Each string is decoded on its own: cut from one decoded string, it would be a
 * slice that keeps the whole batch's text alive as long as the run holds it (response keys). Any
 * other entry travels as it is (`others`).
 *
 * The decoded entries equal the encoded ones, field for field and in the same key order (a test
 * compares their JSON): a field added to a record type fails the type check here until it is
 * carried.
 */
import type { MeasuredUsage, ToolCall } from '../../session/model.js';
import type { EntryCodec } from '../parse-cache.js';
import type { LineEntry } from './line-entry.js';
import type { AssistantRecord, ClaudeRecord, ToolResultBlock, UserRecord } from './record.js';

/** A batch of entries as posted. */
export type EncodedEntries = {
  /** Per entry: its form, line, problem, then its record's fields (see `EntryWriter`). */
  readonly numbers: Float64Array<ArrayBuffer>;
  /**
   * The entries' strings, one after another (the numbers give their lengths), as Latin-1 bytes
   * when every character fits in one, else as UTF-16: either way every string comes back exactly.
   */
  readonly strings: Uint8Array<ArrayBuffer>;
  readonly wide: boolean;
  /** Entries of other forms, in order. */
  readonly others: readonly LineEntry[];
};

const OTHER = 0;
const NO_RECORD = 1;
const ASSISTANT = 2;
const USER = 3;
/** A null string or number. */
const NULL = -1;
/** A character that Latin-1 cannot hold (above U+00FF). */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/** Bytes before a stored batch's numbers: their count, the strings' bytes, the others' JSON bytes, `wide`. */
const STORED_HEAD = 16;

/** Collects entries into an `EncodedEntries`. */
export class EntryWriter {
  private numbers = new Float64Array(16_384);
  private length = 0;
  private strings: string[] = [];
  private others: LineEntry[] = [];
  /** Entries written since the last `take`. */
  count = 0;

  private num(value: number): void {
    if (this.length === this.numbers.length) {
      const bigger = new Float64Array(this.numbers.length * 2);
      bigger.set(this.numbers);
      this.numbers = bigger;
    }
    this.numbers[this.length++] = value;
  }

  private str(value: string | null): void {
    if (value === null) {
      this.num(NULL);
      return;
    }
    this.strings.push(value);
    this.num(value.length);
  }

  /** A nullable number: a flag, then the value. */
  private maybe(value: number | null): void {
    if (value === null) this.num(0);
    else {
      this.num(1);
      this.num(value);
    }
  }

  private bool(value: boolean): void {
    this.num(value ? 1 : 0);
  }

  private envelope(record: AssistantRecord | UserRecord): void {
    this.str(record.uuid);
    this.str(record.parentUuid);
    this.bool(record.sidechain);
    this.str(record.agentId);
    this.str(record.sessionId);
    this.maybe(record.timestampMs);
    this.str(record.cwd);
  }

  private usage(usage: MeasuredUsage | null): void {
    if (usage === null) {
      this.num(0);
      return;
    }
    this.num(1);
    this.num(usage.promptTokens);
    this.num(usage.uncachedInputTokens);
    this.num(usage.cacheReadTokens);
    this.num(usage.cacheWriteTokens);
    this.maybe(usage.cacheWrite5mTokens);
    this.maybe(usage.cacheWrite1hTokens);
    this.num(usage.outputTokens);
    this.maybe(usage.reasoningTokens);
  }

  write(entry: LineEntry): void {
    this.count += 1;
    const record = entry.record;
    if (record === null) this.num(NO_RECORD);
    else if (record.kind === 'assistant') this.num(ASSISTANT);
    else if (record.kind === 'user') this.num(USER);
    else {
      this.num(OTHER);
      this.others.push(entry);
      return;
    }
    this.num(entry.line);
    this.str(entry.problem);
    this.bool(entry.repaired);
    if (record === null) return;
    this.envelope(record);
    if (record.kind === 'assistant') {
      this.str(record.messageId);
      this.str(record.requestId);
      this.str(record.model);
      this.str(record.apiError);
      this.usage(record.usage);
      this.bool(record.usageInvalid);
      this.str(record.text);
      this.num(record.textChars);
      this.num(record.thinkingChars);
      this.num(record.toolCalls.length);
      for (const call of record.toolCalls) {
        this.str(call.callId);
        this.str(call.name);
        this.str(call.argsJson);
        this.bool(call.argsStringified === true);
      }
      this.num(record.webSearches);
      return;
    }
    this.bool(record.isMeta);
    this.bool(record.isCompactSummary);
    this.str(record.content.text);
    this.num(record.content.chars);
    this.num(record.content.imageParts);
    this.num(record.content.imageChars);
    this.bool(record.hasText);
    this.num(record.toolResults.length);
    for (const result of record.toolResults) {
      this.str(result.text);
      this.num(result.chars);
      this.num(result.imageParts);
      this.num(result.imageChars);
      this.str(result.callId);
      this.bool(result.failed);
    }
  }

  /** The entries written since the last call; the writer starts over. */
  take(): EncodedEntries {
    const { joined, wide, bytes } = this.joinedStrings();
    // Not from Buffer's shared pool: the bytes' whole ArrayBuffer is transferred to the other thread.
    const strings = Buffer.allocUnsafeSlow(bytes);
    strings.write(joined, wide ? 'utf16le' : 'latin1');
    const batch = { numbers: this.numbers.slice(0, this.length), strings, wide, others: this.others };
    this.clear();
    return batch;
  }

  /**
   * The entries written since the last call as `storedEntryCodec` stores them, written straight
   * into one buffer (no copy of the numbers, no strings buffer, no concatenation); the writer
   * starts over.
   */
  stored(): Buffer {
    const { joined, wide, bytes: stringBytes } = this.joinedStrings();
    const others = JSON.stringify(this.others);
    const otherBytes = Buffer.byteLength(others);
    const numberBytes = this.length * 8;
    const stringsAt = STORED_HEAD + numberBytes;
    const bytes = Buffer.allocUnsafe(stringsAt + stringBytes + otherBytes);
    bytes.writeUInt32LE(this.length, 0);
    bytes.writeUInt32LE(stringBytes, 4);
    bytes.writeUInt32LE(otherBytes, 8);
    bytes.writeUInt32LE(wide ? 1 : 0, 12);
    bytes.set(new Uint8Array(this.numbers.buffer, 0, numberBytes), STORED_HEAD);
    bytes.write(joined, stringsAt, stringBytes, wide ? 'utf16le' : 'latin1');
    bytes.write(others, stringsAt + stringBytes, otherBytes, 'utf8');
    this.clear();
    return bytes;
  }

  /** The strings written since the last `take`, joined, whether they need UTF-16 (else Latin-1), and their encoded bytes. */
  private joinedStrings(): { joined: string; wide: boolean; bytes: number } {
    const joined = this.strings.join('');
    const wide = BEYOND_LATIN1.test(joined);
    return { joined, wide, bytes: wide ? joined.length * 2 : joined.length };
  }

  /** Forgets what was written since the last `take` (the numbers' array is kept for the next batch). */
  clear(): void {
    this.length = 0;
    this.strings = [];
    this.others = [];
    this.count = 0;
  }
}

/** The writer `storedEntryCodec.encode` uses (cleared before and after each batch). */
const storedWriter = new EntryWriter();

/** Hands every entry of `batch` to `use`, in the order they were written. */
export function readEntriesOf(batch: EncodedEntries, use: (entry: LineEntry) => void): void {
  const { numbers, others } = batch;
  const bytes = batch.strings;
  const strings = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const encoding = batch.wide ? 'utf16le' : 'latin1';
  const width = batch.wide ? 2 : 1;
  let at = 0;
  let other = 0;
  let from = 0;
  const num = (): number => numbers[at++] ?? 0;
  const str = (): string | null => {
    const length = num();
    if (length === NULL) return null;
    from += length * width;
    return strings.toString(encoding, from - length * width, from);
  };
  const text = (): string => str() ?? '';
  const maybe = (): number | null => (num() === 0 ? null : num());
  const bool = (): boolean => num() === 1;
  const usage = (): MeasuredUsage | null =>
    num() === 0
      ? null
      : {
          promptTokens: num(),
          uncachedInputTokens: num(),
          cacheReadTokens: num(),
          cacheWriteTokens: num(),
          cacheWrite5mTokens: maybe(),
          cacheWrite1hTokens: maybe(),
          outputTokens: num(),
          reasoningTokens: maybe(),
        };
  while (at < numbers.length) {
    const form = num();
    if (form === OTHER) {
      const entry = others[other++];
      if (entry !== undefined) use(entry);
      continue;
    }
    const line = num();
    const problem = str();
    const repaired = bool();
    let record: ClaudeRecord | null = null;
    if (form !== NO_RECORD) {
      const uuid = str();
      const parentUuid = str();
      const sidechain = bool();
      const agentId = str();
      const sessionId = str();
      const timestampMs = maybe();
      const cwd = str();
      if (form === ASSISTANT) {
        const messageId = str();
        const requestId = str();
        const model = text();
        const apiError = str();
        const measured = usage();
        const usageInvalid = bool();
        const assistantText = str();
        const textChars = num();
        const thinkingChars = num();
        const toolCalls: ToolCall[] = new Array<ToolCall>(num());
        for (let i = 0; i < toolCalls.length; i += 1) {
          const callId = text();
          const name = text();
          const argsJson = text();
          toolCalls[i] = bool() ? { callId, name, argsJson, argsStringified: true } : { callId, name, argsJson };
        }
        const webSearches = num();
        record = {
          uuid,
          parentUuid,
          sidechain,
          agentId,
          sessionId,
          timestampMs,
          cwd,
          kind: 'assistant',
          messageId,
          requestId,
          model,
          apiError,
          usage: measured,
          usageInvalid,
          text: assistantText,
          textChars,
          thinkingChars,
          toolCalls,
          webSearches,
        };
      } else {
        const isMeta = bool();
        const isCompactSummary = bool();
        const content = { text: str(), chars: num(), imageParts: num(), imageChars: num() };
        const hasText = bool();
        const toolResults: ToolResultBlock[] = new Array<ToolResultBlock>(num());
        for (let i = 0; i < toolResults.length; i += 1)
          toolResults[i] = {
            text: str(),
            chars: num(),
            imageParts: num(),
            imageChars: num(),
            callId: text(),
            failed: bool(),
          };
        record = {
          uuid,
          parentUuid,
          sidechain,
          agentId,
          sessionId,
          timestampMs,
          cwd,
          kind: 'user',
          isMeta,
          isCompactSummary,
          content,
          hasText,
          toolResults,
        };
      }
    }
    use({ line, record, problem, repaired });
  }
}

/**
 * Line entries as the parse cache stores them (`EntryCodec`): a batch's `EncodedEntries` in one
 * buffer (a head, the numbers as float64 in this machine's byte order — a cache is never moved
 * between machines — the strings, the other entries' JSON). Encoding costs a fraction of the
 * entries' JSON and decoding of `JSON.parse` of it (the first run writes every file's entries).
 */
export const storedEntryCodec: EntryCodec<LineEntry> = {
  encode(entries) {
    // One writer for every batch the run stores: a new one started with a zeroed 128 KB array and
    // grew it by copies for each batch (the first run encodes every transcript's entries).
    const writer = storedWriter;
    writer.clear();
    try {
      for (const entry of entries) writer.write(entry);
      return writer.stored();
    } finally {
      writer.clear();
    }
  },
  decode(bytes, use) {
    if (bytes.length < STORED_HEAD) throw new Error('stored entries: cut');
    const count = bytes.readUInt32LE(0);
    const stringBytes = bytes.readUInt32LE(4);
    const otherBytes = bytes.readUInt32LE(8);
    const wide = bytes.readUInt32LE(12);
    const stringsAt = STORED_HEAD + count * 8;
    const othersAt = stringsAt + stringBytes;
    if (othersAt + otherBytes !== bytes.length || wide > 1) throw new Error('stored entries: bad lengths');
    // Copied: the file's bytes need not be 8-aligned for a float64 view.
    const numbers = new Float64Array(count);
    new Uint8Array(numbers.buffer).set(bytes.subarray(STORED_HEAD, stringsAt));
    const strings = new Uint8Array(stringBytes);
    strings.set(bytes.subarray(stringsAt, othersAt));
    const others: unknown = JSON.parse(bytes.toString('utf8', othersAt, bytes.length));
    if (!Array.isArray(others)) throw new Error('stored entries: bad others');
    readEntriesOf({ numbers, strings, wide: wide === 1, others: others as LineEntry[] }, use);
  },
};
