/**
 * The run pack's session codec (`src/ingest/session-codec.ts`): a session with request columns
 * decodes to one that serializes exactly as the one encoded, and its columns are there for the
 * bill to fold (`BillAggregator.addColumns`, held equal to the bill of each measured request by
 * test/usecases/bill-columns.test.ts). Checked against a deliberate bug: a 1h write decoded into the
 * 5m slot ("expected ... to be ..." on the serialized session).
 *
 * A session assembled from the run pack (`assembleSession`) reads its items and requests on first
 * access only, keeps what it read, and behaves as a plain session otherwise: the model's key order,
 * assignable fields, the same JSON. Checked against deliberate bugs: a getter that decodes again on
 * every read (kept value), and a setter that stores nothing (assignment). `requestColumnsAt` (a
 * blob read where it lies in a larger buffer) equals `requestColumns` of the blob at any offset:
 * checked against a misaligned blob viewed through `Buffer#slice` (a view, not a copy: a
 * Float64Array there throws).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assembleSession,
  decodeSession,
  type EncodedSession,
  encodeSession,
  packedRequestsOf,
  requestColumns,
  requestColumnsAt,
} from '../../src/ingest/session-codec.js';
import type { Item, Request, Session } from '../../src/session/model.js';

const count = fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 0x7fffffff }));
const usageArb = fc.record({
  promptTokens: count,
  uncachedInputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  cacheWrite5mTokens: fc.option(count),
  cacheWrite1hTokens: fc.option(count),
  outputTokens: count,
  reasoningTokens: fc.option(count),
});
const requestArb: fc.Arbitrary<Request> = fc.record({
  index: fc.nat(),
  itemIndex: fc.nat(),
  model: fc.constantFrom('claude-sonnet-4-6', 'claude-opus-4-1', '', 'modèle-é'),
  provider: fc.option(fc.constantFrom('anthropic', 'bedrock')),
  timestampMs: fc.option(fc.oneof(fc.integer({ min: -1e12, max: 4e12 }), fc.double({ noNaN: true }))),
  usage: fc.option(usageArb, { freq: 5 }),
  agentId: fc.option(fc.constantFrom('sub-1', 'sidechain:x', '')),
});
const sessionArb: fc.Arbitrary<Session> = fc
  .record({
    id: fc.constantFrom('s1', 'é2'),
    project: fc.option(fc.constantFrom('/home/me/app', '/srv/x')),
    requests: fc.array(requestArb, { maxLength: 12 }),
  })
  .map(({ id, project, requests }) => ({
    id,
    source: 'claude-code',
    title: null,
    project,
    files: [],
    items: [],
    requests,
    events: [],
    issues: [],
    parentSessionId: null,
    totalsOnly: null,
  }));

describe('session codec', () => {
  it('a session with request columns decodes to one that serializes as the one encoded', () => {
    fc.assert(
      fc.property(sessionArb, (s) => {
        const encoded = encodeSession(s);
        expect(encoded.kind).toBe('columns');
        const decoded = decodeSession(encoded);
        expect(packedRequestsOf(decoded)?.timestamps.length).toBe(s.requests.length);
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(s));
      }),
      { numRuns: 300 },
    );
  });

  // The run pack stores a session a worker built as the worker encoded it, without encoding its
  // decoded copy again (`RunPack.store`): both must be the same bytes. Checked against a deliberate
  // bug (an encoding that adds a string of its own to the table each time: the sessions still
  // serialize alike, the bytes differ): fails.
  it('encoding a decoded session gives the bytes it was decoded from, columns or whole JSON', () => {
    const same = (a: EncodedSession, b: EncodedSession): void => {
      expect(a.kind).toBe(b.kind);
      if (a.kind === 'json' && b.kind === 'json') expect(a.whole.equals(b.whole)).toBe(true);
      if (a.kind === 'columns' && b.kind === 'columns') {
        expect(a.head).toEqual(b.head);
        expect(a.strings).toEqual(b.strings);
        expect(a.requests.equals(b.requests)).toBe(true);
        expect(a.items.equals(b.items)).toBe(true);
      }
    };
    fc.assert(
      fc.property(sessionArb, fc.boolean(), (s, whole) => {
        // An extra key makes the codec store the session whole, as JSON.
        const session = whole ? ({ ...s, extra: 1 } as Session) : s;
        const encoded = encodeSession(session);
        expect(encoded.kind).toBe(whole ? 'json' : 'columns');
        same(encodeSession(decodeSession(encoded)), encoded);
      }),
      { numRuns: 300 },
    );
  });
});

const request: Request = {
  index: 0,
  itemIndex: 1,
  model: 'claude-sonnet-4-6',
  provider: 'anthropic',
  timestampMs: 1_700_000_000_000,
  usage: {
    promptTokens: 10,
    uncachedInputTokens: 1,
    cacheReadTokens: 8,
    cacheWriteTokens: 1,
    cacheWrite5mTokens: null,
    cacheWrite1hTokens: 1,
    outputTokens: 3,
    reasoningTokens: null,
  },
  agentId: null,
};
const session: Session = {
  id: 's1',
  source: 'claude-code',
  title: null,
  project: '/home/me/app',
  files: ['/logs/s1.jsonl'],
  items: [],
  requests: [request],
  events: [],
  issues: [],
  parentSessionId: null,
  totalsOnly: null,
};

function assembled(): { readonly session: Session; readonly itemReads: () => number } {
  const encoded = encodeSession(session);
  if (encoded.kind !== 'columns') throw new Error('expected columns');
  let reads = 0;
  const items = encoded.items.toString('utf8');
  const built = assembleSession(encoded.head, requestColumns(encoded.requests, encoded.strings), () => {
    reads += 1;
    return items;
  });
  return { session: built, itemReads: () => reads };
}

describe('assembleSession', () => {
  it("keeps the model's key order and serializes as the session encoded", () => {
    const { session: built, itemReads } = assembled();
    expect(Object.keys(built)).toEqual(Object.keys(session));
    expect(itemReads()).toBe(0);
    expect(JSON.stringify(built)).toBe(JSON.stringify(session));
    expect(built).toEqual(session);
  });

  it('reads items and requests once, on first access, and keeps them', () => {
    const { session: built, itemReads } = assembled();
    expect(itemReads()).toBe(0);
    const requests = built.requests;
    expect(built.requests).toBe(requests);
    expect(requests).toEqual([request]);
    const items = built.items;
    expect(built.items).toBe(items);
    expect(itemReads()).toBe(1);
    expect(Object.keys(built)).toEqual(Object.keys(session));
  });

  it('takes assignments in place of what it would read', () => {
    const { session: built, itemReads } = assembled();
    const items: Item[] = [];
    const mutable = built as { items: Item[]; requests: Request[] };
    mutable.items = items;
    mutable.requests = [];
    expect(built.items).toBe(items);
    expect(built.requests).toEqual([]);
    expect(itemReads()).toBe(0);
    expect(Object.keys(built)).toEqual(Object.keys(session));
  });
});

describe('requestColumnsAt', () => {
  it('reads a requests blob wherever it lies in a buffer, aligned or not', () => {
    const encoded = encodeSession({ ...session, requests: [request, { ...request, index: 1, usage: null }] });
    if (encoded.kind !== 'columns') throw new Error('expected columns');
    const expected = requestColumns(encoded.requests, encoded.strings);
    fc.assert(
      fc.property(fc.nat({ max: 23 }), fc.nat({ max: 9 }), (before, after) => {
        const holder = Buffer.alloc(before + encoded.requests.length + after, 0xff);
        encoded.requests.copy(holder, before);
        const columns = requestColumnsAt(holder, before, encoded.requests.length, encoded.strings);
        expect([...columns.timestamps]).toEqual([...expected.timestamps]);
        expect([...columns.rows]).toEqual([...expected.rows]);
      }),
    );
  });
});
