/**
 * The charts' templates (`svg-chart.ts`): a Vega-Lite specification compiled and parsed once for
 * every chart that differs from it only in its inline values, each chart a copy of the parsed
 * runtime with its values put in. The copies must be what compiling and parsing each whole specification gives, key for key:
 * session timelines of any shape (the `simulate --html` drill-down, one per session), and charts
 * without inline values (compiled whole).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TopLevelSpec } from 'vega-lite';
import type { ScenarioDetail, TimelinePoint } from '../../src/report/simulate-details.js';
import { timelineSpec } from '../../src/report/simulate-html.js';
import { parsedSpec } from '../../src/report/svg-chart.js';

type Vega = typeof import('vega');
type VegaLite = typeof import('vega-lite');

const point: fc.Arbitrary<TimelinePoint> = fc.record({
  index: fc.nat({ max: 1000 }),
  kind: fc.constantFrom('request' as const, 'summarize' as const, 'rejected_overflow' as const),
  cacheReadTokens: fc.nat({ max: 300_000 }),
  cacheWriteTokens: fc.nat({ max: 50_000 }),
  uncachedInputTokens: fc.nat({ max: 20_000 }),
  contextTokens: fc.nat({ max: 1_000_000 }),
  compactionBefore: fc.boolean(),
  failed: fc.boolean(),
});

const NO_COST = { uncachedInput: null, cacheRead: null, cacheWrite: null, output: null };

/** One to four scenarios (names from a small set, so that several sessions share a template). */
const scenarios: fc.Arbitrary<ScenarioDetail[]> = fc
  .uniqueArray(fc.constantFrom('recorded', 'freecode@120000', 'none', 'opencode'), { minLength: 1, maxLength: 4 })
  .chain((names) =>
    fc.tuple(...names.map((name) => fc.array(point, { maxLength: 40 }).map((points) => ({ name, points })))),
  )
  .map((list) =>
    list.map(({ name, points }) => ({
      scenario: name,
      points: points.map((p, i) => ({ ...p, index: i })),
      costByClass: NO_COST,
    })),
  );

describe('chart templates', () => {
  let vega: Vega;
  let vegaLite: VegaLite;
  beforeAll(async () => {
    [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  });

  it('compiles and parses a session timeline as the whole specification does', () => {
    fc.assert(
      fc.property(scenarios, (details) => {
        const spec = timelineSpec(details);
        const whole = vegaLite.compile(spec).spec;
        expect(JSON.stringify(parsedSpec(vega, vegaLite, spec))).toBe(JSON.stringify(vega.parse(whole)));
      }),
      { numRuns: 60 },
    );
  });

  it('stays right past the templates it keeps (a shape drawn again after many others)', () => {
    const shape = (i: number): TopLevelSpec =>
      timelineSpec([{ scenario: `scenario-${i}`, points: [], costByClass: NO_COST }]);
    for (const i of [...Array.from({ length: 40 }, (_, k) => k), 0, 39]) {
      const spec = shape(i);
      expect(JSON.stringify(parsedSpec(vega, vegaLite, spec))).toBe(
        JSON.stringify(vega.parse(vegaLite.compile(spec).spec)),
      );
    }
  });

  it('compiles a chart without inline values whole', () => {
    const spec = {
      data: { name: 'named' },
      mark: 'point',
      encoding: { x: { field: 'a', type: 'quantitative' } },
    } as TopLevelSpec;
    const whole = vegaLite.compile(spec).spec;
    expect(JSON.stringify(parsedSpec(vega, vegaLite, spec))).toBe(JSON.stringify(vega.parse(whole)));
  });
});
