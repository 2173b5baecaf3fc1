/**
 * The static system+tools block per model (replay.md §5): an agent sends a different block per
 * model, so a session that switches model has one block per model, measured as an offset on the
 * session's line; a model with too few requests keeps the session's block.
 */
import { describe, expect, it } from 'vitest';
import { loadBundledPriceTable } from '../../src/cost/bundled-prices.js';
import type { MeasuredUsage, Session } from '../../src/session/model.js';
import type { CalibrationPoint } from '../../src/simulate/calibrate.js';
import { MIN_MODEL_STATIC_POINTS, calibrateSession, calibrationForModel } from '../../src/simulate/calibrate.js';
import { modelFactsFor } from '../../src/simulate/model-facts.js';
import { familyDefaults } from '../../src/simulate/scenario.js';
import { simulateSession } from '../../src/simulate/simulate-session.js';
import { SessionBuilder } from './session-builder.js';

const A = 'claude-opus-4-1';
const B = 'claude-haiku-4-5';

/** Points on a 4-characters-a-token line: model A sends a 3,000-token block, model B 25,000. */
function points(countB: number): CalibrationPoint[] {
  const list: CalibrationPoint[] = [];
  for (let i = 0; i < 8; i++) {
    const chars = 8_000 + 6_000 * i;
    list.push({ promptTokens: 3_000 + chars / 4, visibleChars: chars, visibleSegments: 0, model: A });
  }
  for (let i = 0; i < countB; i++) {
    const chars = 60_000 + 5_000 * i;
    list.push({ promptTokens: 25_000 + chars / 4, visibleChars: chars, visibleSegments: 0, model: B });
  }
  return list;
}

describe('static block per model', () => {
  it('measures each model’s block without letting the larger one tilt the ratio', () => {
    const fit = calibrateSession(points(6));
    expect(fit.tokensPerChar).toBeCloseTo(0.25, 4);
    expect(calibrationForModel(fit, A).staticBlockTokens).toBeCloseTo(3_000, -1);
    expect(calibrationForModel(fit, B).staticBlockTokens).toBeCloseTo(25_000, -1);
  });

  it('a model with fewer requests than the minimum keeps the session’s block', () => {
    const fit = calibrateSession(points(MIN_MODEL_STATIC_POINTS - 1));
    expect(fit.staticBlockTokensByModel?.[B]).toBeUndefined();
    expect(calibrationForModel(fit, B).staticBlockTokens).toBe(fit.staticBlockTokens);
  });

  it('a replay of a session that switches model reproduces both models’ prompts', () => {
    const usage = (prompt: number): MeasuredUsage => ({
      promptTokens: prompt,
      uncachedInputTokens: prompt,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      outputTokens: 20,
      reasoningTokens: null,
    });
    // One token per 4 characters (every size a multiple of 4); model B from the sixth request on.
    const blocks = (i: number) => (i < 5 ? 3_000 : 15_000);
    const builder = new SessionBuilder('switch', A);
    let visible = 0;
    for (let i = 0; i < 10; i++) {
      builder.user(4_000 + 400 * i);
      visible += 1_000 + 100 * i;
      builder.request({ textChars: 800, usage: usage(blocks(i) + visible) });
      visible += 200;
    }
    const built = builder.build();
    const session: Session = {
      ...built,
      source: 'claude-code',
      requests: built.requests.map((r) => (r.index >= 5 ? { ...r, model: B } : r)),
    };
    const simulation = simulateSession(
      session,
      [{ name: 'recorded', family: 'recorded', params: familyDefaults('recorded') }],
      { modelFacts: modelFactsFor(loadBundledPriceTable(), 'anthropic') },
    );
    expect(simulation.fidelity.medianRequestErrorPct ?? 100).toBeLessThan(0.5);
  });
});
