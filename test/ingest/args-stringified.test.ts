/**
 * `ToolCall.argsStringified`: an ingest marks a call whose arguments it wrote itself with
 * `JSON.stringify`, and the replay then keeps them without the canonical scan (`activityOf`). The
 * mark is sound only because such a text serializes back to itself; these tests hold every ingest
 * to that (a mark on the log's own text would change what the memory transcript renders), and the
 * replay's entry to the one the scan gives.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCodexLine } from '../../src/ingest/codex/record.js';
import { discoverSessions, loadSession } from '../../src/ingest/index.js';
import { decodeSession, encodeSession } from '../../src/ingest/session-codec.js';
import type { Session, ToolCall } from '../../src/session/model.js';
import { activityOf } from '../../src/simulate/replay-memo.js';

/** Whether `JSON.stringify(JSON.parse(text))` is `text` (what the mark promises). */
function roundTrips(text: string): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === text;
  } catch {
    return false;
  }
}

/**
 * Values as a log's parsed arguments can be: any JSON, with the keys and strings that make
 * serializing back differ from the text (digit keys V8 lists first, `__proto__`, lone surrogates,
 * control characters) and numbers beyond their shortest form.
 */
const awkwardKey = fc.constantFrom('2', '10', '0', '01', '__proto__', 'a', '-1', '4294967295', '\ud800', '"');
const argsValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    fc.string({ unit: 'binary' }),
    fc.constantFrom(-0, 1e21, 5e-324, 1.5, 0.1, null, true),
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.oneof(awkwardKey, fc.string({ unit: 'binary', maxLength: 4 })), tie('value')), {
        maxLength: 5,
      })
      .map(
        (entries) =>
          JSON.parse(
            `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`,
          ) as unknown,
      ),
  ),
})).value;

describe('argsStringified', () => {
  it('a text JSON.stringify wrote serializes back to itself, and the marked call gives the entry the scan gives', () => {
    fc.assert(
      fc.property(argsValue, fc.string({ maxLength: 6 }), (value, name) => {
        const argsJson = JSON.stringify(value);
        expect(roundTrips(argsJson)).toBe(true);
        const scanned = activityOf({ callId: 'c', name, argsJson });
        expect(activityOf({ callId: 'c', name, argsJson, argsStringified: true })).toStrictEqual(scanned);
      }),
      { numRuns: 3_000 },
    );
  });

  it('Codex marks the calls whose arguments it serialized, never the text the log holds', () => {
    // `function_call` and `custom_tool_call` keep the log's text (often not canonical); the others
    // serialize the log's `action` object.
    const rawText = fc.oneof(
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
      fc.string(),
    );
    const payload = fc.oneof(
      rawText.map((text) => ({ type: 'function_call', call_id: 'c', name: 'shell', arguments: text })),
      rawText.map((text) => ({ type: 'custom_tool_call', call_id: 'c', name: 'apply', input: text })),
      fc.jsonValue().map((action) => ({ type: 'local_shell_call', call_id: 'c', action })),
      fc.jsonValue().map((action) => ({ type: 'web_search_call', id: 'c', action })),
    );
    let marked = 0;
    fc.assert(
      fc.property(payload, (object) => {
        const text = JSON.stringify({ timestamp: '2026-01-02T12:00:00.000Z', type: 'response_item', payload: object });
        const result = parseCodexLine({ number: 1, text, terminated: true }, 'text');
        if (result.kind !== 'record' || result.record.kind !== 'tool_call') throw new Error('not a call');
        const call = result.record.call;
        if (call.argsStringified === true) {
          marked += 1;
          expect(roundTrips(call.argsJson)).toBe(true);
        }
        expect(call.argsStringified === true).toBe(
          object.type === 'local_shell_call' || object.type === 'web_search_call',
        );
      }),
      { numRuns: 1_000 },
    );
    expect(marked).toBeGreaterThan(0);
  });

  it('every marked call of every corpus read here serializes back to itself; FreeCode marks all of its calls', async () => {
    const roots = ['datasets/freecode', 'test/fixtures', join('..', 'shared', 'real-logs')];
    const byFormat = new Map<string, { calls: number; marked: number }>();
    const { sources } = await discoverSessions(roots);
    for (const source of sources) {
      const session = await loadSession(source, { content: 'text' });
      const counts = byFormat.get(session.source) ?? { calls: 0, marked: 0 };
      byFormat.set(session.source, counts);
      for (const item of session.items) {
        if (item.kind !== 'assistant') continue;
        for (const call of item.toolCalls) {
          counts.calls += 1;
          if (call.argsStringified !== true) continue;
          counts.marked += 1;
          if (!roundTrips(call.argsJson)) throw new Error(`${session.id}: ${call.callId} marked, does not round-trip`);
        }
      }
    }
    const freecode = byFormat.get('freecode');
    expect(freecode?.calls).toBeGreaterThan(0);
    expect(freecode?.marked).toBe(freecode?.calls);
    for (const format of ['claude-code', 'opencode']) {
      const counts = byFormat.get(format);
      expect(counts?.marked, format).toBe(counts?.calls);
    }
  });

  it('survives the run pack’s codec (a marked call stays marked, an unmarked one gains nothing)', () => {
    const marked: ToolCall = { callId: 'a', name: 'read', argsJson: '{"path":"x"}', argsStringified: true };
    const plain: ToolCall = { callId: 'b', name: 'shell', argsJson: '{ "cmd": "ls" }' };
    const session: Session = {
      id: 's1',
      source: 'codex',
      title: null,
      project: null,
      files: [],
      items: [
        {
          kind: 'assistant',
          id: 'i1',
          timestampMs: null,
          text: '',
          chars: 0,
          imageParts: 0,
          imageChars: 0,
          responseId: null,
          toolCalls: [marked, plain],
          thinkingChars: 0,
        },
      ],
      requests: [],
      events: [],
      issues: [],
      parentSessionId: null,
      totalsOnly: null,
    };
    const decoded = decodeSession(encodeSession(session));
    const item = decoded.items[0];
    expect(item?.kind === 'assistant' ? item.toolCalls : null).toStrictEqual([marked, plain]);
  });
});
