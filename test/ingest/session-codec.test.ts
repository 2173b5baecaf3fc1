/**
 * The run pack's session codec (`src/ingest/session-codec.ts`): a session with request columns
 * decodes to one that serializes exactly as the one encoded, and its columns are there for the
 * bill to fold (`BillAggregator.addColumns`, held equal to the bill of each measured request by
 * test/usecases/bill-columns.test.ts). Checked against a deliberate bug: a 1h write decoded into the
 * 5m slot ("expected ... to be ..." on the serialized session).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSession, encodeSession, packedRequestsOf } from '../../src/ingest/session-codec.js';
import type { Request, Session } from '../../src/session/model.js';

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
});
