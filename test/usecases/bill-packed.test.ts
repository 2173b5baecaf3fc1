/**
 * The bill of a session the run pack served is read from its stored request columns
 * (`packedBillRequests`, no request objects built); it must be exactly `measuredBillRequests` of
 * the session as built, and the decoded session must still serialize as the one encoded.
 * Checked against deliberate bugs: the unknown-TTL share taken as 0 when only one of the 5m/1h
 * split was given (`||` for `&&`), and `subagent` read from the provider slot; and, since the fold
 * reuses one row for every request (`forEachPackedBillRequest`), `subagent` set on a sub-agent
 * request and never reset for the main-agent requests after it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSession, encodeSession, packedRequestsOf } from '../../src/ingest/session-codec.js';
import type { Request, Session } from '../../src/session/model.js';
import { measuredBillRequests } from '../../src/simulate/to-rows.js';
import { packedBillRequests } from '../../src/usecases/bill.js';

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

describe('bill from the run pack columns', () => {
  it('equals the bill of the session as built, request by request', () => {
    fc.assert(
      fc.property(
        sessionArb,
        fc.option(fc.constantFrom('/p', 'é')),
        fc.option(fc.constant('host')),
        (s, project, host) => {
          const encoded = encodeSession(s);
          expect(encoded.kind).toBe('columns');
          const decoded = decodeSession(encoded);
          const columns = packedRequestsOf(decoded);
          expect(columns).toBeDefined();
          if (columns === undefined) return;
          const place = { project, host };
          expect(packedBillRequests(decoded.id, columns, place)).toEqual(measuredBillRequests(s, place));
          expect(JSON.stringify(decoded)).toBe(JSON.stringify(s));
        },
      ),
      { numRuns: 300 },
    );
  });
});
