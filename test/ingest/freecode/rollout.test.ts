import { describe, expect, it } from 'vitest';
import { HANDLED_EVENT_TYPES, IGNORED_EVENT_TYPES, parseRolloutLine } from '../../../src/ingest/freecode/rollout.js';
import type { Line } from '../../../src/ingest/lines.js';

const BASE =
  '"id":"01M3250WRD2BAEGA21NK","seq":4,"aggregateID":"7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34","timestamp":1790000001805';

function line(text: string, terminated = true): Line {
  return { number: 7, text, terminated };
}

function event(type: string, fields: string): Line {
  return line(`{"type":"${type}",${BASE}${fields === '' ? '' : `,${fields}`}}`);
}

/** The 30 event types of engine.md §6.3, in the table's order. */
const CATALOGUE = [
  'turn.started',
  'turn.aborted',
  'function.call',
  'function.output',
  'function.denied',
  'compact.occurred',
  'subagent.start',
  'subagent.stop',
  'skill.invoked',
  'hook.triggered',
  'hook.blocked',
  'context.overflow',
  'parse.error',
  'model.request',
  'model.first_token',
  'model.response',
  'model.error',
  'memory.auxiliary',
  'memory.exposure',
  'redirect.triggered',
  'redirect.skipped',
  'poke.triggered',
  'poke.skipped',
  'todo.signal',
  'message.steered',
  'cache.warm',
  'session.navigate',
  'checkpoint.captured',
  'checkpoint.skipped',
  'checkpoint.restored',
];

describe('parseRolloutLine', () => {
  it('knows all 30 event types of §6.3, each either handled or ignored', () => {
    expect(CATALOGUE).toHaveLength(30);
    for (const type of CATALOGUE) expect(HANDLED_EVENT_TYPES.has(type) !== IGNORED_EVENT_TYPES.has(type)).toBe(true);
    expect(HANDLED_EVENT_TYPES.size + IGNORED_EVENT_TYPES.size).toBe(30);
  });

  it('reads model.request with its turnId and promptChars (§12.1 line 4)', () => {
    const result = parseRolloutLine(
      event(
        'model.request',
        '"turnId":"turn-0","provider":"anthropic","model":"claude-sonnet-4-5","messageCount":2,"toolCount":16,"promptChars":41210,"streamed":true',
      ),
    );
    expect(result).toEqual({
      kind: 'record',
      problem: null,
      record: {
        kind: 'model_request',
        line: 7,
        eventId: '01M3250WRD2BAEGA21NK',
        timestampMs: 1790000001805,
        turnId: 'turn-0',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        promptChars: 41210,
      },
    });
  });

  it('reads model.response usage as inclusive input with cacheWriteTokens as writes (§10)', () => {
    const result = parseRolloutLine(
      event(
        'model.response',
        '"turnId":"turn-1","provider":"anthropic","model":"claude-sonnet-4-5","duration_ms":990,"ttft_ms":410,"inputTokens":13050,"outputTokens":96,"cacheReadTokens":11200,"cacheWriteTokens":1850,"toolCalls":[],"textChars":66,"thinkingChars":0',
      ),
    );
    expect(result.kind).toBe('record');
    if (result.kind !== 'record' || result.record.kind !== 'model_response') throw new Error('not a response');
    expect(result.record.usage).toMatchObject({
      promptTokens: 13050,
      uncachedInputTokens: 0,
      cacheReadTokens: 11200,
      cacheWriteTokens: 1850,
      outputTokens: 96,
    });
    expect(result.record).toMatchObject({
      toolCallNames: [],
      textChars: 66,
      thinkingChars: 0,
      model: 'claude-sonnet-4-5',
    });
  });

  it('replaces the "(provider default)" model by echoedModel (§6.5)', () => {
    const result = parseRolloutLine(
      event(
        'model.response',
        '"turnId":"turn-0","model":"(provider default)","echoedModel":"MiniMax-M3","textChars":3',
      ),
    );
    expect(result.kind === 'record' && result.record.kind === 'model_response' && result.record.model).toBe(
      'MiniMax-M3',
    );
  });

  it('reads a response without usage (provider reported none) as usage null, no problem', () => {
    const result = parseRolloutLine(
      event('model.response', '"turnId":"turn-0","model":"m","toolCalls":["read"],"textChars":0'),
    );
    expect(result).toMatchObject({ kind: 'record', problem: null, record: { usage: null, toolCallNames: ['read'] } });
  });

  it('reads function.call with and without callId (Aug logs have none), and flags codemode inner calls', () => {
    expect(
      parseRolloutLine(
        event(
          'function.call',
          '"turnId":"turn-0","tool":"read","args":{"filePath":"src/parser.ts"},"callId":"toolu_01AbCdEf"',
        ),
      ),
    ).toMatchObject({
      record: {
        kind: 'function_call',
        tool: 'read',
        args: { value: { filePath: 'src/parser.ts' } },
        callId: 'toolu_01AbCdEf',
        nested: false,
      },
    });
    expect(
      parseRolloutLine(event('function.call', '"turnId":"turn-0","tool":"bash","args":{"command":"ls"}')),
    ).toMatchObject({ record: { callId: null } });
    expect(
      parseRolloutLine(
        event('function.call', '"turnId":"turn-0","tool":"read","args":{},"callId":"c2","parentCallId":"c1"'),
      ),
    ).toMatchObject({ record: { nested: true } });
  });

  it('reads function.output with failed (newest) and without (Aug)', () => {
    expect(
      parseRolloutLine(
        event(
          'function.output',
          '"turnId":"turn-0","tool":"bash","output":"boom","duration_ms":5,"failed":true,"callId":"c"',
        ),
      ),
    ).toMatchObject({
      record: { kind: 'function_output', output: 'boom', failed: true, callId: 'c' },
    });
    expect(
      parseRolloutLine(event('function.output', '"turnId":"turn-0","tool":"bash","output":"","duration_ms":5')),
    ).toMatchObject({ record: { output: '', failed: null } });
  });

  it('keeps only the output size in sizes mode', () => {
    const l = event('function.output', '"turnId":"turn-0","tool":"bash","output":"12345","duration_ms":5');
    expect(parseRolloutLine(l, 'sizes')).toMatchObject({ record: { output: null, outputChars: 5 } });
    expect(parseRolloutLine(l)).toMatchObject({ record: { output: '12345', outputChars: 5 } });
  });

  it('reads function.denied, compaction, overflow, hook block, model error, subagent, poke and steer events', () => {
    expect(
      parseRolloutLine(
        event('function.denied', '"turnId":"turn-0","tool":"write","args":{},"reason":"no","source":"hook"'),
      ),
    ).toMatchObject({ record: { kind: 'function_denied', reason: 'no' } });
    expect(parseRolloutLine(event('compact.occurred', '"beforeTokens":105,"afterTokens":128'))).toMatchObject({
      record: { kind: 'compact_occurred', beforeTokens: 105, afterTokens: 128 },
    });
    expect(parseRolloutLine(event('context.overflow', '"beforeTokens":0'))).toMatchObject({
      record: { kind: 'context_overflow', beforeTokens: 0 },
    });
    expect(parseRolloutLine(event('hook.blocked', '"hookName":"PreCompact","reason":"not now"'))).toMatchObject({
      record: { kind: 'hook_blocked', hookName: 'PreCompact', reason: 'not now' },
    });
    expect(
      parseRolloutLine(
        event(
          'model.error',
          '"turnId":"turn-0","provider":"deepseek","model":"deepseek-chat","duration_ms":3,"kind":"provider","error":"context_length_exceeded"',
        ),
      ),
    ).toMatchObject({ record: { kind: 'model_error', errorKind: 'provider', message: 'context_length_exceeded' } });
    expect(parseRolloutLine(event('subagent.stop', '"subagentId":"s1","result":"ok"'))).toMatchObject({
      record: { kind: 'subagent', phase: 'stop', subagentId: 's1' },
    });
    expect(
      parseRolloutLine(event('poke.triggered', '"turnId":"turn-1","pokeIndex":1,"maxPerRun":2,"remaining":1')),
    ).toMatchObject({ record: { kind: 'poke_triggered' } });
    expect(
      parseRolloutLine(event('message.steered', '"turnId":"turn-0","messageId":"m-1","remaining":0')),
    ).toMatchObject({ record: { kind: 'message_steered', messageId: 'm-1' } });
  });

  it('turns billed side traffic into side requests: memory jobs, redirects, cache warming', () => {
    expect(
      parseRolloutLine(
        event(
          'memory.auxiliary',
          '"purpose":"extraction","provider":"anthropic","model":"claude-haiku-4-5","duration_ms":9,"outcome":"succeeded","inputTokens":300,"outputTokens":20',
        ),
      ),
    ).toMatchObject({
      record: { kind: 'side_request', agentId: 'memory:extraction', usage: { promptTokens: 300, outputTokens: 20 } },
    });
    expect(
      parseRolloutLine(
        event('redirect.triggered', '"turnId":"turn-3","reason":"loop","inputTokens":50,"outputTokens":5'),
      ),
    ).toMatchObject({ record: { agentId: 'redirect' } });
    expect(
      parseRolloutLine(
        event(
          'cache.warm',
          '"provider":"anthropic","model":"m","phase":"idle","delayMs":1,"inputTokens":9000,"cacheReadTokens":9000',
        ),
      ),
    ).toMatchObject({ record: { agentId: 'cache-warm' } });
    expect(
      parseRolloutLine(
        event('memory.auxiliary', '"purpose":"extraction","provider":"anthropic","duration_ms":9,"outcome":"failed"'),
      ),
    ).toEqual({ kind: 'ignored' });
  });

  it('ignores irrelevant known types, most without parsing', () => {
    expect(parseRolloutLine(event('memory.exposure', '"turnId":"turn-0","blockBytes":0'))).toEqual({ kind: 'ignored' });
    expect(parseRolloutLine(event('turn.started', '"turnId":"turn-0"'))).toEqual({ kind: 'ignored' });
    expect(parseRolloutLine(line(''))).toEqual({ kind: 'ignored' });
  });

  it('reports an unknown event type, a missing field, malformed JSON and a truncated last line', () => {
    expect(parseRolloutLine(event('model.teleport', '"turnId":"turn-0"'))).toEqual({
      kind: 'invalid',
      reason: 'unknown event type "model.teleport"',
    });
    expect(parseRolloutLine(event('function.call', '"turnId":"turn-0","args":{}'))).toEqual({
      kind: 'invalid',
      reason: 'function.call: missing field "tool"',
    });
    expect(parseRolloutLine(event('model.request', '"turnId":7'))).toEqual({
      kind: 'invalid',
      reason: 'model.request: invalid field "turnId" (Invalid input: expected string, received number)',
    });
    expect(parseRolloutLine(line('{"id":"x"}'))).toEqual({
      kind: 'invalid',
      reason: 'rollout event: missing field "type"',
    });
    expect(parseRolloutLine(line('{"type":"model.response","id":"x'))).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/^malformed JSON/),
    });
    expect(parseRolloutLine(line('{"type":"compact.occurred","id":"x","before', false))).toEqual({
      kind: 'invalid',
      reason: 'truncated last line',
    });
  });

  it('parses, and so reports, an ignorable line that is truncated or merged with the next event', () => {
    expect(parseRolloutLine(line('{"type":"checkpoint.skipped","id":"x","rea', false))).toEqual({
      kind: 'invalid',
      reason: 'truncated last line',
    });
    expect(
      parseRolloutLine(line('{"type":"checkpoint.skipped","id":"x","re{"type":"model.response","id":"y","seq":3}')),
    ).toMatchObject({ kind: 'invalid' });
  });

  it('keeps a response whose usage needed repair and reports the repair', () => {
    const result = parseRolloutLine(
      event(
        'model.response',
        '"turnId":"turn-0","model":"m","inputTokens":10,"outputTokens":1,"cacheReadTokens":8,"cacheWriteTokens":5,"textChars":0',
      ),
    );
    expect(result).toMatchObject({
      kind: 'record',
      record: { usage: { promptTokens: 13, uncachedInputTokens: 0 } },
      problem: expect.stringContaining('exceed the inclusive inputTokens (10)'),
    });
  });
});
