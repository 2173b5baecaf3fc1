/**
 * `activityOf` (replay-memo.ts) keeps a call's arguments serialized instead of parsed: the memory
 * transcript must render every call exactly as it renders the entry with the parsed arguments,
 * `{ tool, args: JSON.parse(argsJson) }` (the raw text when it is not JSON), whatever the text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolActivity } from '../../src/engine/index.js';
import { renderToolTranscript } from '../../src/engine/index.js';
import { activityOf } from '../../src/simulate/replay-memo.js';

/** The entry as the replay built it before: the parsed arguments. */
function parsedEntry(name: string, argsJson: string): ToolActivity {
  let args: unknown;
  try {
    args = JSON.parse(argsJson) as unknown;
  } catch {
    args = argsJson;
  }
  return { tool: name, args };
}

/** Arguments as logs hold them: compact JSON, indented JSON, JSON with odd spacing, or not JSON at all. */
const argsText = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.jsonValue().map((value) => JSON.stringify(value, null, 2)),
  fc.json(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('null', ' null ', '{}', '[]', '""', '"  "', '{"a":1,"a":2}', '{"b":1,"2":0}', '1.50', '-0', '1e400'),
);

describe('activityOf: arguments kept serialized', () => {
  it('renders every call as the parsed arguments render (outputs, errors, several calls)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.string({ maxLength: 8 }),
            argsJson: argsText,
            output: fc.option(fc.string(), { nil: undefined }),
            error: fc.option(fc.string(), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        fc.integer({ min: 1, max: 2_000 }),
        (calls, maxChars) => {
          const withResult = (entry: ToolActivity, call: (typeof calls)[number]): ToolActivity => ({
            ...entry,
            ...(call.output === undefined ? {} : { output: call.output }),
            ...(call.error === undefined ? {} : { error: call.error }),
          });
          const expected = calls.map((call) => withResult(parsedEntry(call.name, call.argsJson), call));
          const actual = calls.map((call) =>
            withResult(activityOf({ callId: 'c', name: call.name, argsJson: call.argsJson }), call),
          );
          expect(renderToolTranscript(actual, maxChars)).toBe(renderToolTranscript(expected, maxChars));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('keeps the session’s own text when it is already what the transcript serializes', () => {
    const argsJson = JSON.stringify({ command: 'npm test', timeout: 120 });
    expect(activityOf({ callId: 'c', name: 'bash', argsJson })).toEqual({ tool: 'bash', argsJson });
    expect(activityOf({ callId: 'c', name: 'bash', argsJson: ' null' })).toEqual({ tool: 'bash' });
  });
});
