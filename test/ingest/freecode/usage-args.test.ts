import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRolloutLine } from '../../../src/ingest/freecode/rollout.js';
import { parseStoreLine } from '../../../src/ingest/freecode/store.js';
import { MAX_JSON_DEPTH } from '../../../src/ingest/json-text.js';

/** `{"a":{"a":…{}…}}`, `depth` objects deep. */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
}

function callLine(args: string): string {
  return `{"type":"function.call","id":"e1","timestamp":1790000000000,"tool":"read","callId":"c1","args":${args}}`;
}

function storeLine(args: string): string {
  return `{"id":"m1","role":"assistant","timestamp":1790000000000,"parts":[{"type":"tool","tool":{"name":"read","args":${args}},"result":"ok"}]}`;
}

/** What a mode's reading says of a line, without the arguments text (which `usage` mode leaves out). */
function outcome(result: { kind: string }): unknown {
  return JSON.parse(
    JSON.stringify(result, (key, value: unknown) => (key === 'argsJson' || key === 'args' ? undefined : value)),
  );
}

describe('tool-call arguments in usage mode', () => {
  it('leaves the text out (the rollout and the store), the rest as in sizes mode', () => {
    const rollout = { number: 1, text: callLine('{"filePath":"src/a.ts","limit":20}'), terminated: true };
    const sizes = parseRolloutLine(rollout, 'sizes');
    const usage = parseRolloutLine(rollout, 'usage');
    expect(sizes).toMatchObject({ kind: 'record', record: { args: { value: { filePath: 'src/a.ts', limit: 20 } } } });
    expect(usage).toMatchObject({ kind: 'record', record: { args: null } });
    expect(outcome(usage)).toEqual(outcome(sizes));

    const store = { number: 1, text: storeLine('{"filePath":"src/a.ts"}'), terminated: true };
    const storeSizes = parseStoreLine(store, 'sizes');
    const storeUsage = parseStoreLine(store, 'usage');
    expect(storeSizes).toMatchObject({
      kind: 'message',
      message: { parts: [{ argsJson: '{"filePath":"src/a.ts"}' }] },
    });
    expect(storeUsage).toMatchObject({ kind: 'message', message: { parts: [{ argsJson: '' }] } });
    expect(outcome(storeUsage)).toEqual(outcome(storeSizes));
  });

  it('reports arguments nested too deep as the same issue in every mode', () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_JSON_DEPTH - 3, max: MAX_JSON_DEPTH + 3 }), (depth) => {
        const args = nested(depth);
        for (const [text, parse] of [
          [callLine(args), parseRolloutLine],
          [storeLine(args), parseStoreLine],
        ] as const) {
          const line = { number: 1, text, terminated: true };
          const usage = parse(line, 'usage');
          expect(outcome(usage)).toEqual(outcome(parse(line, 'sizes')));
          expect(usage.kind === 'invalid' && usage.reason.includes('nested deeper')).toBe(depth > MAX_JSON_DEPTH);
        }
      }),
    );
  });
});
