/**
 * A built `Session` as bytes for the run pack (`run-pack.ts`), read back cheaply: a re-run decodes
 * hundreds of sessions and tens of thousands of requests, and `JSON.parse` of the plain session is
 * most of its time. So the parts are stored as what is cheapest to read back:
 * - the requests (fixed shape, numbers and a few repeated strings) as one `Float64Array` row each
 *   and a table of their strings: no parsing at all, one object literal per request; before them,
 *   their sums by model and side of the sub-agent split (`requestSums`), which a re-run's bill
 *   folds instead of each request where they price alike;
 * - the items as JSON text, parsed only when something reads `items` (the bill never does; the
 *   session summary does), then kept;
 * - the rest (ids, events, issues: small) as JSON in the pack's index.
 * A session of any other shape (a field added to the model, a NaN) is stored whole as JSON: the
 * codec never drops or changes a value it does not know. Decoding gives an object equal to the
 * one encoded, keys in the same order, so `JSON.stringify` of both is the same bytes.
 * A decoded session builds its request objects on first read too: the bill reads the columns
 * themselves (`packedRequestsOf`), ~35,000 requests on a large re-run that then make no objects.
 */
import { unknownTtlTokens } from '../session/cache-class-tokens.js';
import type { Item, MeasuredUsage, Request, Session } from '../session/model.js';

/** The session without its items and requests, as the pack's index stores it. */
export type SessionHead = Omit<Session, 'items' | 'requests'>;

/** What one session is stored as: its head (JSON), its requests' strings, and up to two blobs. */
export type EncodedSession =
  | {
      readonly kind: 'columns';
      readonly head: SessionHead;
      readonly strings: readonly string[];
      /**
       * The length of the requests' sums (`requestSums`, one float64), the sums, a float64
       * timestamp per request, then `REQUEST_SLOTS` int32 per request (native byte order).
       */
      readonly requests: Buffer;
      /** `JSON.stringify(session.items)`. */
      readonly items: Buffer;
    }
  | { readonly kind: 'json'; readonly whole: Buffer };

const SESSION_KEYS = [
  'id',
  'source',
  'title',
  'project',
  'files',
  'items',
  'requests',
  'events',
  'issues',
  'parentSessionId',
  'totalsOnly',
] as const;
const REQUEST_KEYS = ['index', 'itemIndex', 'model', 'provider', 'timestampMs', 'usage', 'agentId'] as const;
const USAGE_KEYS = [
  'promptTokens',
  'uncachedInputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'cacheWrite5mTokens',
  'cacheWrite1hTokens',
  'outputTokens',
  'reasoningTokens',
] as const;

/**
 * Int32 slots of one request row: index, itemIndex, model, provider, has usage, 8 usage counts,
 * agentId; its timestamp is a float64 apart. Counts are stored as int32 so that they read back as
 * small integers, as `JSON.parse` gives them (doubles would cost a heap number each).
 */
export const REQUEST_SLOTS = 14;
/** A null count or string (counts are non-negative; string slots hold an index into the session's strings). */
const NULL_SLOT = -1;
const MAX_SLOT = 0x7fffffff;

function sameKeys(value: object, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  if (own.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i += 1) if (own[i] !== keys[i]) return false;
  return true;
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_SLOT && !Object.is(value, -0);
const isNullableCount = (value: unknown): boolean => value === null || isCount(value);
/** A timestamp: any number but NaN (the column's null). */
const isTimestamp = (value: unknown): boolean => value === null || (typeof value === 'number' && !Number.isNaN(value));

/** Whether a request has exactly the model's shape (the columns could hold it without loss). */
function columnar(request: Request): boolean {
  if (!sameKeys(request, REQUEST_KEYS)) return false;
  if (!isCount(request.index) || !isCount(request.itemIndex) || typeof request.model !== 'string') return false;
  if (request.provider !== null && typeof request.provider !== 'string') return false;
  if (request.agentId !== null && typeof request.agentId !== 'string') return false;
  if (!isTimestamp(request.timestampMs)) return false;
  const usage = request.usage;
  if (usage === null) return true;
  if (typeof usage !== 'object' || !sameKeys(usage, USAGE_KEYS)) return false;
  return (
    isCount(usage.promptTokens) &&
    isCount(usage.uncachedInputTokens) &&
    isCount(usage.cacheReadTokens) &&
    isCount(usage.cacheWriteTokens) &&
    isNullableCount(usage.cacheWrite5mTokens) &&
    isNullableCount(usage.cacheWrite1hTokens) &&
    isCount(usage.outputTokens) &&
    isNullableCount(usage.reasoningTokens)
  );
}

/** Encodes a built session (see the module comment). */
export function encodeSession(session: Session): EncodedSession {
  if (!sameKeys(session, SESSION_KEYS) || !session.requests.every(columnar))
    return { kind: 'json', whole: Buffer.from(JSON.stringify(session)) };
  const strings: string[] = [];
  const indexOf = new Map<string, number>();
  const intern = (text: string | null): number => {
    if (text === null) return NULL_SLOT;
    let index = indexOf.get(text);
    if (index === undefined) {
      index = strings.length;
      strings.push(text);
      indexOf.set(text, index);
    }
    return index;
  };
  const count = session.requests.length;
  const timestamps = new Float64Array(count);
  const rows = new Int32Array(count * REQUEST_SLOTS);
  let at = 0;
  for (const [i, request] of session.requests.entries()) {
    const usage = request.usage;
    timestamps[i] = request.timestampMs ?? Number.NaN;
    rows[at] = request.index;
    rows[at + 1] = request.itemIndex;
    rows[at + 2] = intern(request.model);
    rows[at + 3] = intern(request.provider);
    rows[at + 4] = usage === null ? 0 : 1;
    if (usage !== null) {
      rows[at + 5] = usage.promptTokens;
      rows[at + 6] = usage.uncachedInputTokens;
      rows[at + 7] = usage.cacheReadTokens;
      rows[at + 8] = usage.cacheWriteTokens;
      rows[at + 9] = usage.cacheWrite5mTokens ?? NULL_SLOT;
      rows[at + 10] = usage.cacheWrite1hTokens ?? NULL_SLOT;
      rows[at + 11] = usage.outputTokens;
      rows[at + 12] = usage.reasoningTokens ?? NULL_SLOT;
    }
    rows[at + 13] = intern(request.agentId);
    at += REQUEST_SLOTS;
  }
  const { items, requests, ...head } = session;
  void requests;
  const sums = requestSums(timestamps, rows);
  const sumsLength = Float64Array.of(sums.length);
  return {
    kind: 'columns',
    head,
    strings,
    // Float64 columns first: they stay 8-aligned where the blob is.
    requests: Buffer.concat([
      Buffer.from(sumsLength.buffer, sumsLength.byteOffset, sumsLength.byteLength),
      Buffer.from(sums.buffer, sums.byteOffset, sums.byteLength),
      Buffer.from(timestamps.buffer, timestamps.byteOffset, timestamps.byteLength),
      Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength),
    ]),
    items: Buffer.from(JSON.stringify(items)),
  };
}

/** Int32 slot of each field in a request row (`REQUEST_SLOTS` per request). */
export const SLOT = {
  index: 0,
  itemIndex: 1,
  model: 2,
  provider: 3,
  /** 1 when the request has usage (the counts below), else 0. */
  hasUsage: 4,
  promptTokens: 5,
  uncachedInputTokens: 6,
  cacheReadTokens: 7,
  cacheWriteTokens: 8,
  cacheWrite5mTokens: 9,
  cacheWrite1hTokens: 10,
  outputTokens: 11,
  reasoningTokens: 12,
  agentId: 13,
} as const;

/**
 * A decoded session's requests as stored: a timestamp per request (NaN = null), `REQUEST_SLOTS`
 * int32 per request (`SLOT`; -1 = null count or string), the strings the string slots index, and
 * the sums of its measured requests (`requestSums`).
 */
export type PackedRequests = {
  readonly timestamps: Float64Array;
  readonly rows: Int32Array;
  readonly strings: readonly string[];
  readonly sums: Float64Array;
};

/**
 * Where each figure lies in `requestSums`: the session's own figures first, then one entry of
 * `SUMS.stride` per model and side of the sub-agent split, in the order of each pair's first request.
 */
export const SUMS = {
  /** Requests with usage (measured). */
  measured: 0,
  /** The earliest and the latest timestamp of a measured request (NaN: none has one). */
  first: 1,
  last: 2,
  /** Where the first entry starts. */
  entries: 3,
  /** Per entry: */
  stride: 11,
  /** The model's string slot (`NULL_ROW_SLOT` for none). */
  model: 0,
  /** 1: requests of a sub-agent (an agent id); 0: the main agent's. */
  subagent: 1,
  /** How many requests, and the largest prompt among them. */
  requests: 2,
  maxPrompt: 3,
  /** Token sums, as the bill's columns split them (the 5m-rate writes without their unknown-TTL part, that part, known 1h writes). */
  prompt: 4,
  uncached: 5,
  read: 6,
  write5m: 7,
  writeUnknown: 8,
  write1h: 9,
  output: 10,
} as const;

/**
 * The sums of a session's measured requests (`SUMS`), by model and side of the sub-agent split: what
 * a re-run's bill folds instead of each request where every request of a pair is priced alike
 * (`BillAggregator.addColumns`). Whole numbers: exact in any order.
 */
export function requestSums(timestamps: Float64Array, rows: Int32Array): Float64Array {
  const out: number[] = [0, Number.NaN, Number.NaN];
  /** Entry start in `out` by model slot, for the main agent (even keys) and sub-agents (odd). */
  const entryAt = new Map<number, number>();
  for (let i = 0, at = 0; i < timestamps.length; i += 1, at += REQUEST_SLOTS) {
    if (rows[at + SLOT.hasUsage] !== 1) continue;
    out[SUMS.measured] = (out[SUMS.measured] ?? 0) + 1;
    const stamp = timestamps[i] ?? Number.NaN;
    if (!Number.isNaN(stamp)) {
      const first = out[SUMS.first] ?? Number.NaN;
      const last = out[SUMS.last] ?? Number.NaN;
      if (Number.isNaN(first) || stamp < first) out[SUMS.first] = stamp;
      if (Number.isNaN(last) || stamp > last) out[SUMS.last] = stamp;
    }
    const model = rows[at + SLOT.model] ?? NULL_SLOT;
    const subagent = (rows[at + SLOT.agentId] ?? NULL_SLOT) === NULL_SLOT ? 0 : 1;
    const key = 2 * model + subagent;
    let entry = entryAt.get(key);
    if (entry === undefined) {
      entry = out.length;
      entryAt.set(key, entry);
      for (let k = 0; k < SUMS.stride; k += 1) out.push(0);
      out[entry + SUMS.model] = model;
      out[entry + SUMS.subagent] = subagent;
    }
    const prompt = rows[at + SLOT.promptTokens] ?? 0;
    const write = rows[at + SLOT.cacheWriteTokens] ?? 0;
    const write5mSlot = rows[at + SLOT.cacheWrite5mTokens] ?? NULL_SLOT;
    const write1hSlot = rows[at + SLOT.cacheWrite1hTokens] ?? NULL_SLOT;
    const known1h = write1hSlot === NULL_SLOT ? 0 : write1hSlot;
    const unknown = unknownTtlTokens(
      write,
      write5mSlot === NULL_SLOT ? null : write5mSlot,
      write1hSlot === NULL_SLOT ? null : write1hSlot,
    );
    out[entry + SUMS.requests] = (out[entry + SUMS.requests] ?? 0) + 1;
    if (prompt > (out[entry + SUMS.maxPrompt] ?? 0)) out[entry + SUMS.maxPrompt] = prompt;
    out[entry + SUMS.prompt] = (out[entry + SUMS.prompt] ?? 0) + prompt;
    out[entry + SUMS.uncached] = (out[entry + SUMS.uncached] ?? 0) + (rows[at + SLOT.uncachedInputTokens] ?? 0);
    out[entry + SUMS.read] = (out[entry + SUMS.read] ?? 0) + (rows[at + SLOT.cacheReadTokens] ?? 0);
    // As the bill's columns: whatever is not a known 1h write bills at the 5m rate, its unknown-TTL part apart.
    out[entry + SUMS.write5m] = (out[entry + SUMS.write5m] ?? 0) + (write - known1h - unknown);
    out[entry + SUMS.writeUnknown] = (out[entry + SUMS.writeUnknown] ?? 0) + unknown;
    out[entry + SUMS.write1h] = (out[entry + SUMS.write1h] ?? 0) + known1h;
    out[entry + SUMS.output] = (out[entry + SUMS.output] ?? 0) + (rows[at + SLOT.outputTokens] ?? 0);
  }
  return Float64Array.from(out);
}

/** The value of a null count or string in a row. */
export const NULL_ROW_SLOT = NULL_SLOT;

const packed = new WeakMap<Session, PackedRequests>();

/** The stored columns of a session decoded by `assembleSession` (undefined for any other session). */
export function packedRequestsOf(session: Session): PackedRequests | undefined {
  return packed.get(session);
}

const countOrNull = (value: number | undefined): number | null =>
  value === undefined || value === NULL_SLOT ? null : value;

/** The requests of `timestamps` and `rows` (as many as there are timestamps). */
export function decodeRequests(timestamps: Float64Array, rows: Int32Array, strings: readonly string[]): Request[] {
  const text = (slot: number | undefined): string | null =>
    slot === undefined || slot === NULL_SLOT ? null : (strings[slot] ?? null);
  const requests: Request[] = new Array<Request>(timestamps.length);
  for (let i = 0, at = 0; i < timestamps.length; i += 1, at += REQUEST_SLOTS) {
    const timestampMs = timestamps[i] ?? Number.NaN;
    const usage: MeasuredUsage | null =
      rows[at + 4] === 1
        ? {
            promptTokens: rows[at + 5] ?? 0,
            uncachedInputTokens: rows[at + 6] ?? 0,
            cacheReadTokens: rows[at + 7] ?? 0,
            cacheWriteTokens: rows[at + 8] ?? 0,
            cacheWrite5mTokens: countOrNull(rows[at + 9]),
            cacheWrite1hTokens: countOrNull(rows[at + 10]),
            outputTokens: rows[at + 11] ?? 0,
            reasoningTokens: countOrNull(rows[at + 12]),
          }
        : null;
    requests[i] = {
      index: rows[at] ?? 0,
      itemIndex: rows[at + 1] ?? 0,
      model: text(rows[at + 2]) ?? '',
      provider: text(rows[at + 3]),
      timestampMs: Number.isNaN(timestampMs) ? null : timestampMs,
      usage,
      agentId: text(rows[at + 13]),
    };
  }
  return requests;
}

/** The columns of a `requests` blob (`EncodedSession`); in place when the blob is 8-aligned, else copied. */
export function requestColumns(blob: Uint8Array, strings: readonly string[]): PackedRequests {
  return requestColumnsAt(blob, 0, blob.length, strings);
}

/**
 * `requestColumns` of the `length` bytes at `offset` in `bytes`, without a view of the blob itself
 * first (a re-run reads hundreds of blobs out of one region).
 */
export function requestColumnsAt(
  bytes: Uint8Array,
  offset: number,
  length: number,
  strings: readonly string[],
): PackedRequests {
  let buffer = bytes.buffer;
  let start = bytes.byteOffset + offset;
  if (start % 8 !== 0) {
    // A copy (`Buffer#slice` would be a view): float64 needs 8-alignment.
    const copy = new Uint8Array(bytes.subarray(offset, offset + length));
    buffer = copy.buffer;
    start = copy.byteOffset;
  }
  const sumsLength = length >= 8 ? (new Float64Array(buffer, start, 1)[0] ?? Number.NaN) : Number.NaN;
  const sumsBytes = 8 * (1 + sumsLength);
  const count = (length - sumsBytes) / (8 + 4 * REQUEST_SLOTS);
  if (!Number.isInteger(sumsLength) || sumsLength < 0 || !Number.isInteger(count) || count < 0)
    throw new Error('session codec: a request row is cut');
  return {
    timestamps: new Float64Array(buffer, start + sumsBytes, count),
    rows: new Int32Array(buffer, start + sumsBytes + 8 * count, count * REQUEST_SLOTS),
    strings,
    sums: new Float64Array(buffer, start + 8, sumsLength),
  };
}

/** Replaces an accessor of `target` by a plain, writable data property holding `value` (kept in place in the key order). */
function settle<T>(target: object, key: string, value: T): T {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  return value;
}

/**
 * A session from its head, its stored request columns and its items' JSON text. `items` is parsed
 * and `requests` built on first read, then kept as plain properties; assigning either replaces
 * it. The key order is the model's, so the session serializes exactly as the one encoded.
 * One object literal whose `items` and `requests` are accessors: a re-run assembles hundreds of
 * sessions, and defining the accessors one by one (`Object.defineProperty`) cost ~20 µs each
 * (the object's shape changed at each step); a literal's shape is made once.
 */
export function assembleSession(head: SessionHead, columns: PackedRequests, itemsJson: () => string): Session {
  const session = {
    id: head.id,
    source: head.source,
    title: head.title,
    project: head.project,
    files: head.files,
    get items(): Item[] {
      return settle(this, 'items', JSON.parse(itemsJson()) as Item[]);
    },
    set items(value: Item[]) {
      settle(this, 'items', value);
    },
    get requests(): Request[] {
      return settle(this, 'requests', decodeRequests(columns.timestamps, columns.rows, columns.strings));
    },
    set requests(value: Request[]) {
      settle(this, 'requests', value);
    },
    events: head.events,
    issues: head.issues,
    parentSessionId: head.parentSessionId,
    totalsOnly: head.totalsOnly,
  };
  // The object was built key by key in the model's order from a head that was a session's.
  const assembled: Session = session;
  packed.set(assembled, columns);
  return assembled;
}

/** The session `encodeSession` encoded (what the run pack serves). */
export function decodeSession(encoded: EncodedSession): Session {
  if (encoded.kind === 'json') return JSON.parse(encoded.whole.toString('utf8')) as Session;
  const items = encoded.items.toString('utf8');
  return assembleSession(encoded.head, requestColumns(encoded.requests, encoded.strings), () => items);
}
