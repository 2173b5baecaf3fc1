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

describe('renderers of one session sharing the ids of whole results', () => {
  const OTHER: TokenCalibration = { ...CALIBRATION, tokensPerChar: 0.31 };
  /** Tool parts drawing their call ids from a small pool: one call shown whole, cut or edited. */
  const partArb = fc.record({
    call: fc.nat({ max: 3 }),
    chars: fc.nat({ max: 50 }),
    shown: fc.constantFrom('whole', 'cut', 'edited'),
  });

  function withParts(serial: number, parts: readonly { call: number; chars: number; shown: string }[]): ReplayMessage {
    const base = message(serial, 10, [], 0);
    const tools: ReplayToolPart[] = parts.map(({ call, chars, shown }) => ({
      type: 'tool',
      id: `call${call}`,
      name: 'read',
      args: {},
      result: 'r'.repeat(chars),
      fullChars: shown === 'cut' ? chars + 1 : chars,
      failed: false,
      ...(shown === 'edited' ? { editedAs: 'masked' } : {}),
    }));
    return { ...base, role: 'assistant', parts: [{ type: 'text' }, ...tools] };
  }

  it('render what renderers of their own render, whatever a call is shown as', () => {
    fc.assert(
      fc.property(fc.array(fc.array(partArb, { maxLength: 3 }), { minLength: 1, maxLength: 12 }), (messages) => {
        const shared = new Map<string, string>();
        const renderers = [CALIBRATION, OTHER].map((calibration) => new PromptRenderer(calibration, true, shared));
        const history = messages.map((parts, serial) => withParts(serial, parts));
        for (const [k, renderer] of renderers.entries()) {
          const calibration = k === 0 ? CALIBRATION : OTHER;
          for (let end = 1; end <= history.length; end++) {
            const visible = history.slice(0, end);
            expect(renderer.render('static:a', null, visible)).toEqual(
              renderPrompt('static:a', null, visible, calibration),
            );
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
