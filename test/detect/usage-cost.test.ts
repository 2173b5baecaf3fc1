/**
 * The detectors' pricing remembers each model name's resolution per price table: a cost must be
 * the pricing reference's (`priceCounts`) for every name form (id, alias, other case, date suffix,
 * provider prefix, unknown), time (across price windows, and none) and request kind, with two
 * tables priced in turn.
 *
 * Checked against deliberate bugs: the price remembered per model name (the time's window ignored),
 * and the names remembered across tables.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPriceTable, priceCounts } from '../../src/cost/index.js';
import type { PriceTable } from '../../src/cost/index.js';
import { usageCostPicoUsd } from '../../src/detect/usage-cost.js';
import { classCounts } from './count-arbitraries.js';
import { PRICES } from './trace-fixture.js';

/** The bundled table with one model of several price windows under another id, its old id an alias: the name resolves to another id there. */
function renamed(table: PriceTable, id: string): PriceTable {
  const built = buildPriceTable(
    table.prices.map((price) =>
      price.id === id ? { ...price, id: `${id}-renamed`, aliases: [id, ...price.aliases] } : price,
    ),
  );
  if (built.kind !== 'ok') throw new Error(built.reason);
  return built.table;
}
const RENAMED = 'claude-sonnet-5';
const OTHER = renamed(PRICES, RENAMED);

const bounds = PRICES.prices.flatMap((price) => [price.validFromMs, price.validToMs]).filter((t) => t !== null);
const names = [...PRICES.idByName.keys()];

const name = fc.oneof(
  fc.constantFrom(...names),
  fc.constantFrom(...names).map((n) => n.toUpperCase()),
  fc.constantFrom(...names).map((n) => `${n}-20250929`),
  fc.constantFrom(...names).map((n) => `anthropic/${n}`),
  fc.constantFrom(...names).map((n) => `openrouter/${n}`),
  fc.constantFrom(RENAMED, `${RENAMED}-renamed`, 'deepseek-chat', 'no-such-model'),
);
const time = fc.oneof(
  fc.constant(null),
  fc.constantFrom(...bounds).chain((t) => fc.integer({ min: t - 2, max: t + 1 })),
  fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
);
const counts = classCounts(2_000_000);

describe('usageCostPicoUsd', () => {
  it("property: the pricing reference's cost, whatever was priced before and in which table", () => {
    const request = fc.record({
      table: fc.constantFrom(PRICES, OTHER),
      model: name,
      timestampMs: time,
      usage: counts,
      kind: fc.constantFrom('request' as const, 'summarize' as const, 'rejected_overflow' as const),
    });
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 30 }), (requests) => {
        for (const { table, model, timestampMs, usage, kind } of requests) {
          const direct = priceCounts(table, kind, model, timestampMs, usage);
          expect(usageCostPicoUsd(table, model, timestampMs, usage, kind)).toBe(
            direct === null ? null : direct.totalPicoUsd,
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});
