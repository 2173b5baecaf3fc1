import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TOOL_TRANSCRIPT_LIMITS,
  memoizedTurnForMemory,
  renderToolTranscript,
  renderTurnForMemory,
} from '../../src/engine/index.js';
import type { ToolActivity, ToolLineMemo, TurnMemo } from '../../src/engine/index.js';

describe('tool transcript (engine.md §3.5)', () => {
  it('renders one line per call: args, output, ok, failed', () => {
    expect(
      renderToolTranscript(
        [
          {
            tool: 'read',
            args: { filePath: 'src/parser.ts' },
            output: '1\texport function parse(src: string) {\n2\t  // …\n',
          },
          { tool: 'bash', args: { command: 'npm test' }, output: '' },
          { tool: 'edit', args: null, error: 'old_string not found' },
          { tool: 'todo' },
        ],
        4_000,
      ),
    ).toBe(
      [
        'Tool read: {"filePath":"src/parser.ts"} -> 1 export function parse(src: string) { 2 // …',
        'Tool bash: {"command":"npm test"} -> ok',
        'Tool edit: -> failed: old_string not found',
        'Tool todo: -> ok',
      ].join('\n'),
    );
  });

  it('collapses whitespace, trims, and clips args and results to 200 chars with one "…" (U+2026)', () => {
    const line = renderToolTranscript(
      [{ tool: 'grep', args: { pattern: 'x'.repeat(300) }, output: `  ${'y '.repeat(150)}  ` }],
      10_000,
    );
    const [head, output] = line.split(' -> ');
    expect(TOOL_TRANSCRIPT_LIMITS).toEqual({ MAX_RESULT_CHARS: 200, MAX_ARGS_CHARS: 200 });
    expect(head).toBe(`Tool grep: ${JSON.stringify({ pattern: 'x'.repeat(300) }).slice(0, 200)}\u2026`);
    expect(output).toBe(`${'y '.repeat(100).slice(0, 200)}\u2026`);
    expect(renderToolTranscript([{ tool: 't', output: 'z'.repeat(200) }], 10_000)).toBe(
      `Tool t: -> ${'z'.repeat(200)}`,
    );
  });

  it('renders unserializable args as nothing', () => {
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expect(renderToolTranscript([{ tool: 'a', args: cyclic }], 100)).toBe('Tool a: -> ok');
    expect(renderToolTranscript([{ tool: 'b', args: () => 1 }], 100)).toBe('Tool b: -> ok');
    expect(renderToolTranscript([{ tool: 'c', args: 10n }], 100)).toBe('Tool c: -> ok');
  });

  it('drops the oldest lines over budget and says how many were omitted', () => {
    const activity = Array.from({ length: 5 }, (_, i) => ({ tool: `t${i}`, output: 'o' }));
    // Each line is "Tool tN: -> o" (13 chars) + 1 = 14 per line: 70 in all.
    expect(renderToolTranscript(activity, 70).split('\n')).toHaveLength(5);
    expect(renderToolTranscript(activity, 69)).toBe(
      ['[1 earlier tool calls omitted]', 'Tool t1: -> o', 'Tool t2: -> o', 'Tool t3: -> o', 'Tool t4: -> o'].join('\n'),
    );
    expect(renderToolTranscript(activity, 28)).toBe(
      ['[3 earlier tool calls omitted]', 'Tool t3: -> o', 'Tool t4: -> o'].join('\n'),
    );
    // Never below one line, even over budget.
    expect(renderToolTranscript(activity, 0)).toBe('[4 earlier tool calls omitted]\nTool t4: -> o');
    expect(renderToolTranscript([], 0)).toBe('');
  });

  it('joins text and transcript for memory', () => {
    const activity = [{ tool: 'read', output: 'x' }];
    expect(renderTurnForMemory('', activity, 100)).toBe('Tool read: -> x');
    expect(renderTurnForMemory('Hi', [], 100)).toBe('Hi');
    expect(renderTurnForMemory('Hi', activity, 100)).toBe('Hi\nTool read: -> x');
    expect(renderTurnForMemory('', [], 100)).toBe('');
  });
});

describe('memory entries through a memo of turns (TurnMemo)', () => {
  // A pool of entries (the same objects come back, as a replay's memo hands them over), responses
  // made of them, texts and budgets; a memo shared by every call.
  const pool: ToolActivity[] = [
    { tool: 'read', argsJson: '{"filePath":"a.ts"}', output: 'one' },
    { tool: 'read', argsJson: '{"filePath":"a.ts"}', output: 'one' },
    { tool: 'bash', argsJson: '{"command":"npm test"}', error: 'failed' },
    { tool: 'edit', argsJson: undefined, output: 'x'.repeat(300) },
    { tool: 'todo' },
  ];
  const call = fc.record({
    text: fc.constantFrom('', 'Reading.', 'Reading.', 'Done.\nNext'),
    activity: fc
      .array(fc.nat({ max: pool.length - 1 }), { maxLength: 4 })
      .map((at) => at.map((i) => pool[i] as ToolActivity)),
    maxChars: fc.constantFrom(40, 80, 4_000),
  });

  it('gives what renderTurnForMemory gives, whatever was asked before with the same first entry', () => {
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 30 }), fc.boolean(), (calls, withLines) => {
        const turns: TurnMemo = new WeakMap();
        const lines: ToolLineMemo | undefined = withLines ? new WeakMap() : undefined;
        for (const { text, activity, maxChars } of calls) {
          // A fresh array each call, as each walk builds its response's.
          const given = [...activity];
          expect(memoizedTurnForMemory(turns, text, given, maxChars, lines)).toBe(
            renderTurnForMemory(text, activity, maxChars),
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});
