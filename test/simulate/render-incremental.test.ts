/**
 * `PromptRenderer.render` looks up only the messages after the part of the history it shares with
 * its last render (`PromptRenderer.last`). The property: over any sequence of histories a replay
 * renders (messages appended, one replaced by a new object, a rewind, a compaction keeping the
 * tail, another summary or model), one renderer gives what a fresh renderer gives each time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReplayMessage, ReplayToolPart, SummaryBlock } from '../../src/simulate/provider-view.js';
import { PromptRenderer, renderPrompt } from '../../src/simulate/provider-view.js';
import type { TokenCalibration } from '../../src/simulate/calibrate.js';

const CALIBRATION: TokenCalibration = {
  tokensPerChar: 0.27,
  staticBlockTokens: 900,
  source: 'fitted',
  points: 10,
  restoredTokens: [300],
};

type Step =
  | { readonly kind: 'append'; readonly chars: number; readonly results: readonly number[]; readonly images: number }
  | { readonly kind: 'replace'; readonly at: number; readonly chars: number }
  | { readonly kind: 'rewind'; readonly at: number }
  | { readonly kind: 'compact'; readonly at: number }
  | { readonly kind: 'render'; readonly summary: 0 | 1 | 2; readonly model: 'a' | 'b' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      chars: fc.nat({ max: 500 }),
      results: fc.array(fc.nat({ max: 2_000 }), { maxLength: 3 }),
      images: fc.constantFrom(0, 0, 1),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('replace' as const),
      at: fc.nat({ max: 30 }),
      chars: fc.nat({ max: 500 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rewind' as const), at: fc.nat({ max: 30 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), at: fc.nat({ max: 30 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('render' as const),
      summary: fc.constantFrom<0 | 1 | 2>(0, 1, 2),
      model: fc.constantFrom<'a' | 'b'>('a', 'b'),
    }),
  },
);

function message(serial: number, chars: number, results: readonly number[], images: number): ReplayMessage {
  const parts: ReplayToolPart[] = results.map((resultChars, k) => ({
    type: 'tool',
    id: `call${serial}-${k}`,
    name: 'read',
    args: {},
    result: 'r'.repeat(resultChars),
    fullChars: resultChars + (k % 2),
    failed: false,
  }));
  return {
    id: `m${serial}`,
    role: results.length > 0 ? 'assistant' : 'user',
    parts: [{ type: 'text' }, ...parts],
    itemIndex: serial,
    ownChars: chars,
    imageParts: images,
    text: ' '.repeat(chars),
    synthetic: null,
  };
}

const SUMMARIES: readonly (SummaryBlock | null)[] = [
  null,
  { id: 'summary#1', chars: 700 },
  { id: 'summary#2', chars: 40, restart: 1 },
];

describe('prompt rendering from the last render', () => {
  it('one renderer renders every history as a fresh one does', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 50, size: 'max' }), (steps) => {
        const renderer = new PromptRenderer(CALIBRATION);
        let history: ReplayMessage[] = [];
        let serial = 0;
        for (const step of steps) {
          serial += 1;
          switch (step.kind) {
            case 'append':
              history = [...history, message(serial, step.chars, step.results, step.images)];
              break;
            case 'replace':
              if (history.length > 0) {
                // A new object under the same id, as a tool result joining its call's message.
                const index = step.at % history.length;
                const before = history[index];
                history = [...history];
                if (before !== undefined)
                  history[index] = { ...message(serial, step.chars, [step.chars], 0), id: before.id };
              }
              break;
            case 'rewind':
              history = history.slice(0, step.at % (history.length + 1));
              break;
            case 'compact':
              history = history.slice(step.at % (history.length + 1));
              break;
            case 'render': {
              const summary = SUMMARIES[step.summary] ?? null;
              expect(renderer.render(`static:${step.model}`, summary, history)).toEqual(
                renderPrompt(`static:${step.model}`, summary, history, CALIBRATION),
              );
              break;
            }
            default: {
              const unreachable: never = step;
              return unreachable;
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
