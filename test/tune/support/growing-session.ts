/**
 * Synthetic sessions whose context only grows (the runaway shape of replay.md §9): user turns of
 * tool calls with sizeable results, idle gaps that let the 5-minute cache expire, no measured
 * usage (token sizes come from the default calibration, 4 characters per token).
 */
import type { Session } from '../../../src/session/model.js';
import { SessionBuilder } from '../../simulate/session-builder.js';

export type GrowingShape = {
  readonly id: string;
  readonly model: string;
  /** Requests per user turn. */
  readonly turns: readonly number[];
  /** Characters of each tool result, cycled. */
  readonly resultChars: readonly number[];
  /** Seconds between requests, and the idle gap before each user turn after the first. */
  readonly stepSeconds: number;
  readonly idleSeconds: number;
};

export function growingSession(shape: GrowingShape): Session {
  const builder = new SessionBuilder(shape.id, shape.model);
  let n = 0;
  shape.turns.forEach((requests, turn) => {
    if (turn > 0) builder.wait(shape.idleSeconds * 1_000);
    builder.user(400 + 37 * turn);
    for (let i = 0; i < requests; i++) {
      const resultChars = shape.resultChars[n % shape.resultChars.length] ?? 1_000;
      n += 1;
      builder.wait(shape.stepSeconds * 1_000);
      builder.request(
        i === requests - 1 ? { textChars: 600 } : { textChars: 120, tool: { argsChars: 80, resultChars } },
      );
    }
  });
  return builder.build();
}

/** The runaway of the acceptance criteria, in small: a 1M-window model whose context grows to ~300K. */
export const RUNAWAY_SHAPE: GrowingShape = {
  id: 'runaway-synthetic',
  model: 'MiniMax-M3',
  turns: [30, 22, 26, 18, 24, 20, 16],
  resultChars: [9_000, 4_000, 12_000, 2_500, 7_000],
  stepSeconds: 25,
  idleSeconds: 900,
};
