/**
 * `usage` mode reads Claude Code lines from their bytes (`parseClaudeRawLine`: checked and cut by
 * `json-scan.ts`, only the rest parsed). It must give exactly the record or issue the text path
 * (`parseClaudeLine`) gives, for any line: valid, malformed, truncated, nested too deep.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mutate } from '../mutate-bytes.js';
import { parseClaudeLine, parseClaudeRawLine, parseScannedClaudeLine } from '../../../src/ingest/claude-code/record.js';
import { scanJson } from '../../../src/ingest/json-scan.js';
import { MAX_JSON_DEPTH } from '../../../src/ingest/json-text.js';
import { forEachLineEntry, type LineParser, readLinesCached } from '../../../src/ingest/parse-cache.js';
import { type RawLine, rawLineEnd, rawLineStart, rawLineText, scanFileLines } from '../../../src/ingest/lines.js';

function rawLine(bytes: Buffer, number: number, terminated: boolean, pad: number): RawLine {
  const buffer = Buffer.alloc(bytes.length + pad + 5, 0x7d);
  bytes.copy(buffer, pad);
  return { number, buffer, start: pad, end: pad + bytes.length, terminated, endOffset: 0 };
}

/**
 * Both byte readers: `parseClaudeRawLine` (which scans only long lines) and the scan itself on a
 * line of any length (the generated lines are mostly short).
 */
const BYTE_READERS: readonly ((line: RawLine) => ReturnType<typeof parseClaudeLine>)[] = [
  (line) => parseClaudeRawLine(line, 'usage'),
  parseScannedClaudeLine,
];

function expectSameAsText(line: RawLine): void {
  const text = { number: line.number, text: rawLineText(line), terminated: line.terminated };
  const expected = parseClaudeLine(text, 'usage');
  for (const read of BYTE_READERS) expect(read(line)).toEqual(expected);
}

/**
 * The raw path's one documented difference (`parseClaudeRawLine`): a line that is not valid JSON
 * only because of characters inside a string `usage` mode skips may be read, but only as a
 * record that carries no usage (never an assistant record), and only when the bytes really are
 * invalid JSON there (a full check rejects them; the structure and every kept field parse).
 */
function expectSameOrUncheckedString(line: RawLine): void {
  const text = { number: line.number, text: rawLineText(line), terminated: line.terminated };
  const expected = parseClaudeLine(text, 'usage');
  const malformed =
    expected.kind === 'invalid' &&
    (expected.reason.startsWith('malformed JSON') || expected.reason === 'truncated last line');
  for (const read of BYTE_READERS) {
    const actual = read(line);
    if (!malformed || JSON.stringify(actual) === JSON.stringify(expected)) {
      expect(actual).toEqual(expected);
      continue;
    }
    expect(actual.kind === 'record' && actual.record.kind === 'assistant').toBe(false);
    expect(scanJson(line.buffer, rawLineStart(line), rawLineEnd(line), null, 10_000, 'all').kind).toBe('invalid');
    expect(scanJson(line.buffer, rawLineStart(line), rawLineEnd(line), null, 10_000, 'structure').kind).toBe('json');
  }
}

// Ids and folders outside ASCII too: the byte path decodes only part of a line, the text path all of it.
const id = fc.constantFrom('a', 'b', 'toolu_1', 'msg_1', '', 'msg_é', 'u-🦀');
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('é\n"\\', 'x'.repeat(40), '', 'bell \u0007 here'));
const anyJson = fc.jsonValue({ maxDepth: 3 });
/** `[[[…]]]` around the boundary of MAX_JSON_DEPTH (1000), counted from the line's root. */
const deep = fc.integer({ min: 990, max: 1010 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown);

const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('thinking'), thinking: text, signature: text }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('redacted_thinking'), data: text }, { requiredKeys: ['type'] }),
  fc.record(
    {
      type: fc.constantFrom('tool_use', 'server_tool_use'),
      id,
      name: fc.constantFrom('Bash', 'Read'),
      input: fc.oneof(anyJson, deep),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('tool_result'),
      tool_use_id: id,
      content: fc.oneof(
        text,
        fc.array(
          fc.oneof(
            fc.record({ type: fc.constant('text'), text }),
            fc.record({ type: fc.constant('image'), source: fc.record({ data: text }) }),
          ),
          { maxLength: 3 },
        ),
      ),
      is_error: fc.oneof(fc.boolean(), fc.constant('yes')),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('image'), source: fc.record({ data: text }) }),
  text,
  anyJson,
);

const count = fc.oneof(fc.nat({ max: 200_000 }), fc.constantFrom(-1, 1.5, '12', null, 1e12));
const usage = fc.record(
  {
    input_tokens: count,
    output_tokens: count,
    cache_read_input_tokens: count,
    cache_creation_input_tokens: count,
    cache_creation: fc.record({ ephemeral_5m_input_tokens: count, ephemeral_1h_input_tokens: count }),
  },
  { requiredKeys: [] },
);

const message = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        id,
        model: fc.constantFrom('claude-sonnet-4-6', '<synthetic>', 7),
        role: fc.constantFrom('assistant', 'user'),
        content: fc.oneof(text, fc.array(block, { maxLength: 4 }), fc.constant({ a: 1 })),
        usage: fc.oneof(usage, fc.constant(null), fc.constant('x')),
        stop_reason: fc.oneof(text, fc.constant(null)),
        type: fc.constant('message'),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: anyJson },
);

const claudeLine = fc.record(
  {
    type: fc.constantFrom(
      'assistant',
      'assistant',
      'user',
      'user',
      'system',
      'summary',
      'progress',
      'ai-title',
      'odd',
      5,
    ),
    uuid: id,
    parentUuid: fc.oneof(id, fc.constant(null)),
    isSidechain: fc.boolean(),
    sessionId: id,
    agentId: id,
    timestamp: fc.constantFrom('2026-01-01T00:00:00.000Z', 'yesterday', 12),
    cwd: fc.constantFrom('/w', 'C:\\w', '/home/José'),
    requestId: id,
    isMeta: fc.boolean(),
    isCompactSummary: fc.boolean(),
    isApiErrorMessage: fc.boolean(),
    error: text,
    subtype: fc.constantFrom('compact_boundary', 'api_error', 'informational'),
    compactMetadata: fc.record({ trigger: fc.constantFrom('auto', 'manual', 'x'), preTokens: count }),
    content: text,
    summary: text,
    leafUuid: id,
    title: text,
    message,
    toolUseResult: fc.oneof(anyJson, deep),
    data: anyJson,
    version: text,
    userType: anyJson,
  },
  { requiredKeys: ['type'] },
);

/** Lines with U+0007 in a string `usage` mode skips (a tool input, a text, a tool output). */
const withBell = fc
  .record({
    type: fc.constantFrom('assistant', 'user'),
    where: fc.constantFrom('text', 'thinking', 'input', 'result', 'toolUseResult'),
  })
  .map(({ type, where }) => {
    const bell = 'ring \u0007 ring';
    const block =
      where === 'text'
        ? { type: 'text', text: bell }
        : where === 'thinking'
          ? { type: 'thinking', thinking: bell }
          : where === 'input'
            ? { type: 'tool_use', id: 't', name: 'Bash', input: { command: bell } }
            : { type: 'tool_result', tool_use_id: 't', content: where === 'result' ? bell : 'ok' };
    return JSON.stringify({
      type,
      uuid: 'u',
      message: { id: 'm', model: 'claude-sonnet-4-6', content: [block], usage: { input_tokens: 1, output_tokens: 2 } },
      ...(where === 'toolUseResult' ? { toolUseResult: { stdout: bell } } : {}),
    });
  });

/** The line as a writer might put it: JSON.stringify, maybe with a duplicate key appended. */
const lineText = fc
  .tuple(claudeLine, fc.option(fc.tuple(fc.constantFrom('type', 'message', 'toolUseResult', 'isMeta'), anyJson)))
  .map(([object, duplicate]) => {
    const written = JSON.stringify(object);
    if (duplicate === null) return written;
    return `${written.slice(0, -1)},${JSON.stringify(duplicate[0])}:${JSON.stringify(duplicate[1])}}`;
  });

const mutation = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('insert', 'replace', 'delete', 'truncate'),
  byte: fc.constantFrom(0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x30, 0x2d, 0x75, 0x09, 0x0d, 0x00, 0xe2),
});

/** How the line sits in its file: a byte order mark (line 1), a CRLF ending, terminated or not. */
const framing = fc.record({
  number: fc.constantFrom(1, 2),
  bom: fc.boolean(),
  crlf: fc.boolean(),
  terminated: fc.boolean(),
  pad: fc.nat({ max: 7 }),
});

function framed(
  bytes: Buffer,
  f: { number: number; bom: boolean; crlf: boolean; terminated: boolean; pad: number },
): RawLine {
  const parts = [f.bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), bytes, Buffer.from(f.crlf ? '\r' : '')];
  return rawLine(Buffer.concat(parts), f.number, f.terminated, f.pad);
}

describe('parseClaudeRawLine = parseClaudeLine in usage mode (differential)', () => {
  // Checked against a deliberate bug: without the fallback to the text path for API error lines
  // (`<synthetic>` / `isApiErrorMessage`), their error text comes from elided blocks and this fails.
  it('valid generated lines: the same record, problem and issue', () => {
    fc.assert(
      fc.property(lineText, framing, (line, f) => {
        expectSameAsText(framed(Buffer.from(line, 'utf8'), f));
      }),
      { numRuns: 400 },
    );
  });

  it('mutated and truncated lines: the same record or issue, except strings usage mode skips in records without usage', () => {
    fc.assert(
      fc.property(lineText, fc.array(mutation, { minLength: 1, maxLength: 3 }), framing, (line, steps, f) => {
        expectSameOrUncheckedString(framed(mutate(Buffer.from(line, 'utf8'), steps), f));
      }),
      { numRuns: 600 },
    );
  });

  // Checked against a deliberate bug: scanning with a depth bound 10 levels above MAX_JSON_DEPTH
  // reads a tool input 1001–1006 levels deep without the "nested deeper" issue, and this fails.
  // Checked against a deliberate bug: reading assistant lines after the 'structure' scan alone
  // (without `isJson`) reads these as requests, and this fails.
  it('a raw control character or a bad escape inside a skipped string: an issue on an assistant line', () => {
    const defect = fc.constantFrom(Buffer.from([0x07]), Buffer.from('\\x'), Buffer.from('\\u12'));
    fc.assert(
      fc.property(fc.oneof(lineText, withBell), defect, framing, (line, bad, f) => {
        // JSON.stringify writes U+0007 as the six bytes \u0007: put the defect there instead.
        const bytes = Buffer.from(line.replaceAll('\\u0007', '\u0000'), 'utf8');
        const parts: Buffer[] = [];
        let from = 0;
        for (let at = bytes.indexOf(0); at !== -1; at = bytes.indexOf(0, from)) {
          parts.push(bytes.subarray(from, at), bad);
          from = at + 1;
        }
        parts.push(bytes.subarray(from));
        const raw = framed(Buffer.concat(parts), f);
        expectSameOrUncheckedString(raw);
        for (const read of BYTE_READERS) {
          const result = read(raw);
          if (line.includes('\\u0007') && result.kind === 'record') expect(result.record.kind).not.toBe('assistant');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('lines nested around MAX_JSON_DEPTH: the same "too deep" issue or the same record', () => {
    const nested = fc.record({
      where: fc.constantFrom('input', 'toolUseResult', 'usage'),
      depth: fc.integer({ min: 990, max: 1010 }),
      type: fc.constantFrom('assistant', 'user'),
    });
    fc.assert(
      fc.property(nested, framing, ({ where, depth, type }, f) => {
        const value = '['.repeat(depth) + ']'.repeat(depth);
        const input = where === 'input' ? value : '{}';
        const line =
          `{"type":"${type}","message":{"id":"m","model":"x","content":[{"type":"tool_use","id":"t","input":${input}}],` +
          `"usage":${where === 'usage' ? value : '{"input_tokens":1,"output_tokens":2}'}}` +
          `${where === 'toolUseResult' ? `,"toolUseResult":${value}` : ''}}`;
        const raw = framed(Buffer.from(line, 'utf8'), f);
        expectSameAsText(raw);
        // And what that is: an assistant's tool input deeper than MAX_JSON_DEPTH is the line's issue in every
        // mode (other values are not read in usage mode).
        const result = parseClaudeRawLine(raw, 'usage');
        // (A byte order mark is only dropped on line 1: elsewhere it makes the line malformed.)
        if (type === 'assistant' && where === 'input' && !(f.bom && f.number !== 1)) {
          expect(result.kind === 'invalid' && result.reason.includes('nested deeper')).toBe(depth > MAX_JSON_DEPTH);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('hand-picked lines: blank, whitespace, not an object, API errors, too deep', () => {
    const deepInput = `{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"tool_use","input":${'['.repeat(1001)}${']'.repeat(1001)}}]}}`;
    for (const line of [
      '',
      '   ',
      '\u00a0',
      '[]',
      '"assistant"',
      '{}',
      '{"type":"assistant"}',
      '{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"Overloaded"}]}}',
      '{"type":"assistant","isApiErrorMessage":true,"message":{"model":"m","content":[{"type":"text","text":"502"}]}}',
      '{"type":"user","message":{"content":"hello é"},"toolUseResult":{"stdout":"x"}}',
      '{"type":"user","type":"assistant","message":{"id":"m","model":"x","usage":{"input_tokens":3,"output_tokens":1}}}',
      deepInput,
    ]) {
      for (const number of [1, 2]) expectSameAsText(rawLine(Buffer.from(line, 'utf8'), number, true, 1));
    }
  });
});

describe('parseClaudeRawLine: which lines are scanned', () => {
  // The readers' one visible difference (a raw control character inside a skipped tool output of
  // a user line) shows which one read the line: long lines must take the scan (the time it saves).
  it('a line of 2 KB or more is scanned, a shorter one parsed whole', () => {
    const line = (filler: number): RawLine =>
      rawLine(
        Buffer.from(
          `{"type":"user","message":{"content":"hi"},"toolUseResult":{"stdout":"bell \u0007 ${'x'.repeat(filler)}"}}`,
          'utf8',
        ),
        2,
        true,
        0,
      );
    const short = parseClaudeRawLine(line(100), 'usage');
    expect(short.kind === 'invalid' && short.reason.startsWith('malformed JSON')).toBe(true);
    expect(parseClaudeRawLine(line(3000), 'usage').kind).toBe('record');
    expect(parseScannedClaudeLine(line(100)).kind).toBe('record');
  });
});

describe('reading a file with a byte parser', () => {
  // A regression seen once: the uncached read decoded every line and called `parse`, so the byte
  // path of `report --no-cache` and `sessions --no-cache` was never taken.
  it('forEachLineEntry and readLinesCached hand every line to parseRaw when the parser has one', async () => {
    const file = '../shared/real-logs/claude-code/projects';
    const first = readdirSync(file, { withFileTypes: true }).find((entry) => entry.isDirectory());
    expect(first).toBeDefined();
    const dir = join(file, first?.name ?? '');
    const transcript = join(dir, readdirSync(dir).find((name) => name.endsWith('.jsonl')) ?? '');
    const parser: LineParser<number> = {
      key: 'test/raw/1',
      parse: () => {
        throw new Error('decoded path taken');
      },
      parseRaw: (line) => line.number,
    };
    const seen: number[] = [];
    await forEachLineEntry(transcript, parser, (n) => seen.push(n));
    const cached: number[] = [];
    await readLinesCached(transcript, parser, null, cached);
    expect(seen.length).toBeGreaterThan(0);
    expect(cached).toEqual(seen);
  });
});

describe('parseClaudeRawLine on ../shared/real-logs', () => {
  it('every line of every real Claude Code transcript: the same result as the text path', async () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.jsonl')) files.push(path);
      }
    };
    walk('../shared/real-logs/claude-code');
    expect(files.length).toBeGreaterThan(0);
    let lines = 0;
    for (const file of files) {
      await scanFileLines(
        file,
        (line, text) => {
          lines += 1;
          const expected = parseClaudeLine({ number: line.number, text, terminated: line.terminated }, 'usage');
          for (const read of BYTE_READERS) expect(read(line)).toEqual(expected);
        },
        undefined,
        { decode: true },
      );
    }
    expect(lines).toBeGreaterThan(1000);
  });
});
