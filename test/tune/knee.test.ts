import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CurvePoint } from '../../src/tune/knee.js';
import { findKnee } from '../../src/tune/knee.js';

const curve = (targets: number[], costs: number[]): CurvePoint[] =>
  targets.map((targetTokens, i) => ({ targetTokens, cost: costs[i] ?? 0 }));
const T = [40, 80, 120, 160, 200, 240, 280, 320, 360, 400].map((k) => k * 1_000);

describe('knee (maximum distance to the chord)', () => {
  it('finds the bend of a hockey stick: flat up to 200K, then rising', () => {
    const knee = findKnee(curve(T, [10, 10, 10, 10, 10, 14, 18, 22, 26, 30]));
    expect(knee?.targetTokens).toBe(200_000);
    expect(knee?.side).toBe('below');
  });

  it('finds the bottom of a valley: compaction costs on the left, cache reads on the right', () => {
    const knee = findKnee(curve(T, [25, 21, 19, 18, 18.5, 20, 22, 24, 26, 28]));
    expect(knee?.targetTokens).toBe(160_000);
    expect(knee?.side).toBe('below');
  });

  it('finds where a concave curve flattens (targets above the sessions’ peak change nothing)', () => {
    const knee = findKnee(curve(T, [10, 14, 18, 22, 26, 27, 27, 27, 27, 27]));
    expect(knee?.targetTokens).toBe(200_000);
    expect(knee?.side).toBe('above');
  });

  it('has no knee with fewer than three points, a flat curve or a straight line', () => {
    expect(findKnee(curve([1, 2], [5, 7]))).toBeNull();
    expect(
      findKnee(
        curve(
          T,
          T.map(() => 3),
        ),
      ),
    ).toBeNull();
    expect(
      findKnee(
        curve(
          T,
          T.map((t) => t / 1_000),
        ),
      ),
    ).toBeNull();
  });

  // Checked against two deliberate bugs: the chord's x not measured from the first target (a
  // target offset then moves the knee), and the sort dropped (the knee depends on input order).
  it('depends only on the shape: not on units, offsets or input order', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 2_000 }), { minLength: 3, maxLength: 12 }),
        fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 12, maxLength: 12 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.integer({ min: 2, max: 50 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 500_000 }),
        (ks, costs, costScale, targetScale, offset, shift) => {
          const points = ks.map((k, i) => ({ targetTokens: k * 1_000, cost: costs[i] ?? 0 }));
          const knee = findKnee(points);
          const scaled = findKnee(
            points.map((p) => ({
              targetTokens: p.targetTokens * targetScale + shift,
              cost: p.cost * costScale + offset,
            })),
          );
          const shuffled = findKnee([...points].reverse());
          expect(scaled?.targetTokens ?? null).toBe(knee === null ? null : knee.targetTokens * targetScale + shift);
          expect(shuffled?.targetTokens ?? null).toBe(knee?.targetTokens ?? null);
          if (knee !== null) {
            const sorted = [...ks].sort((a, b) => a - b);
            expect(knee.targetTokens).toBeGreaterThan((sorted[0] ?? 0) * 1_000);
            expect(knee.targetTokens).toBeLessThan((sorted.at(-1) ?? 0) * 1_000);
          }
        },
      ),
    );
  });
});
