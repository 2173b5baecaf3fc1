/**
 * The TypeScript bill is linear in its requests: every cost column of a group holding two requests
 * is the sum of that column for each alone (each request is priced at its own rates; `settle`
 * multiplies summed tokens once per set of rates). Requests here leave whole token classes at 0,
 * most of them often, main agent and sub-agents alike. Checked against a deliberate bug: the sums
 * of a set of rates whose only tokens are output taken as empty (`anyTokens` ignoring output).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BillRequest, BillAggregator } from '../../src/cost/bill-aggregate.js';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import type { BillLine } from '../../src/cost/bill.js';
import type { Money } from '../../src/cost/reports.js';
import { billWindow } from '../../src/usecases/bill-window.js';

const prices = loadBundledPriceTable();
const maybe = fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 300_000 }));
const requestArb: fc.Arbitrary<BillRequest> = fc
  .record({
    model: fc.constantFrom('claude-sonnet-4-5', 'claude-opus-4-6'),
    subagent: fc.boolean(),
    uncached: maybe,
    read: maybe,
    w5m: maybe,
    w1h: maybe,
    unknown: maybe,
    output: maybe,
  })
  .map(({ model, subagent, uncached, read, w5m, w1h, unknown, output }) => ({
    sessionId: 's1',
    project: null,
    host: null,
    model,
    timestampMs: Date.parse('2026-01-05T10:00:00Z'),
    subagent,
    promptTokens: uncached + read + w5m + unknown + w1h,
    uncachedInputTokens: uncached,
    cacheReadTokens: read,
    cacheWrite5mTokens: w5m + unknown,
    cacheWrite1hTokens: w1h,
    outputTokens: output,
    unknownTtlTokens: unknown,
  }));

function line(requests: readonly BillRequest[]): BillLine {
  const aggregator = new BillAggregator(prices, {
    by: 'session',
    window: billWindow(undefined, undefined, 'UTC'),
    timeZone: 'UTC',
    breakdown: false,
  });
  for (const request of requests) aggregator.add(request);
  const [only] = aggregator.table().lines;
  if (only === undefined) throw new Error('no line');
  return only;
}

const COLUMNS = [
  'inputCost',
  'cacheReadCost',
  'cacheWrite5mCost',
  'cacheWrite1hCost',
  'cacheWriteUnknownTtlCost',
  'outputCost',
  'cost',
  'subagentCost',
  'ownCost',
] as const;
const pico = (money: Money): bigint => money?.picoUsd ?? 0n;

describe('the TypeScript bill', () => {
  it('costs two requests together as the sum of each alone, column by column', () => {
    fc.assert(
      fc.property(requestArb, requestArb, (a, b) => {
        const both = line([a, b]);
        const alone = [line([a]), line([b])];
        for (const column of COLUMNS)
          expect(pico(both[column]), column).toBe(pico(alone[0]?.[column] ?? null) + pico(alone[1]?.[column] ?? null));
      }),
      { numRuns: 300 },
    );
  });
});
