import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { activePath, parseMeta, parseStoreLine, type StoreMessage } from '../../../src/ingest/freecode/store.js';
import type { Line } from '../../../src/ingest/lines.js';

const SPEC = 'test/fixtures/freecode/spec-12';

function lines(path: string): Line[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((text) => text !== '')
    .map((text, i) => ({ number: i + 1, text, terminated: true }));
}

function message(text: string): StoreMessage {
  const result = parseStoreLine({ number: 1, text, terminated: true });
  if (result.kind !== 'message') throw new Error(JSON.stringify(result));
  return result.message;
}

describe('parseStoreLine', () => {
  it('reads the §12.2 lines: text, a tool part with its result, usage with cacheWriteInputTokens', () => {
    const parsed = lines(`${SPEC}/messages-before-compaction.jsonl`).map((l) => parseStoreLine(l));
    expect(parsed.every((r) => r.kind === 'message' && r.problem === null)).toBe(true);
    const [user, text, tool] = parsed.map((r) => (r.kind === 'message' ? r.message : null));
    expect(user).toMatchObject({
      role: 'user',
      synthetic: null,
      parts: [{ kind: 'text', text: 'Why does parse() choke on inline tables?', chars: 40 }],
      usage: null,
    });
    expect(text?.usage).toMatchObject({
      promptTokens: 11840,
      cacheReadTokens: 0,
      cacheWriteTokens: 11200,
      uncachedInputTokens: 640,
      outputTokens: 212,
    });
    expect(tool).toMatchObject({
      usage: null,
      parts: [
        {
          kind: 'tool',
          partIndex: 0,
          name: 'read',
          argsJson: '{"filePath":"src/parser.ts"}',
          result: '1\texport function parse(src: string) {\n2\t  // …\n',
          resultChars: 48,
        },
      ],
    });
  });

  it('reads the other line shapes of §12.2: synthetic, image parts, interrupted, parentId', () => {
    const [poke, caption, interrupted, branch] = lines(`${SPEC}/other-line-shapes.jsonl`).map((l) => {
      const r = parseStoreLine(l);
      if (r.kind !== 'message') throw new Error('bad');
      return r.message;
    });
    expect(poke?.synthetic).toBe('auto_poke');
    // The tool-image message has no synthetic field on disk; §7.4 step 4 gives its fixed text.
    expect(caption).toMatchObject({
      synthetic: 'image_caption',
      parts: [{ kind: 'text' }, { kind: 'image', dataChars: 'iVBORw0KGgo…'.length }],
    });
    expect(interrupted?.interrupted).toBe(true);
    expect(branch?.parentId).toBe('9c8b7a6f-5e4d-4c3b-8a29-1f0e9d8c7b6a');
  });

  it('reads writes from cacheCreationInputTokens in 2026-08-05…08-17 stores (§7.5)', () => {
    const m = message(
      '{"id":"a","role":"assistant","parts":[{"type":"text","content":"x"}],"timestamp":1,"usage":{"inputTokens":100,"outputTokens":5,"cacheReadInputTokens":60,"cacheCreationInputTokens":40}}',
    );
    expect(m.usage).toMatchObject({
      promptTokens: 100,
      cacheReadTokens: 60,
      cacheWriteTokens: 40,
      uncachedInputTokens: 0,
    });
  });

  it('prefers cacheWriteInputTokens over cacheCreationInputTokens when both are present', () => {
    const m = message(
      '{"id":"a","role":"assistant","parts":[],"timestamp":1,"usage":{"inputTokens":100,"outputTokens":5,"cacheCreationInputTokens":99,"cacheWriteInputTokens":30}}',
    );
    expect(m.usage?.cacheWriteTokens).toBe(30);
  });

  it('replaces args that are not a plain object by {} as FreeCode does on load (§7.3), and counts code parts as text', () => {
    const m = message(
      '{"id":"a","role":"assistant","parts":[{"type":"code","content":"let x","language":"ts"},{"type":"tool","tool":{"name":"bash","args":"ls -la"},"result":"ok"}],"timestamp":1}',
    );
    expect(m.parts).toEqual([
      { kind: 'text', text: 'let x', chars: 5 },
      { kind: 'tool', partIndex: 1, name: 'bash', argsJson: '{}', result: 'ok', resultChars: 2 },
    ]);
  });

  it('keeps a message with an unknown part, drops the part and reports it', () => {
    const result = parseStoreLine({
      number: 3,
      text: '{"id":"a","role":"assistant","parts":[{"type":"hologram"},{"type":"text","content":"Here."}],"timestamp":1}',
      terminated: true,
    });
    expect(result).toMatchObject({
      kind: 'message',
      problem: 'part 0: unknown part type "hologram"',
      message: { parts: [{ kind: 'text', text: 'Here.', chars: 5 }] },
    });
  });

  it('reports a role it does not know, a missing id and malformed JSON', () => {
    expect(
      parseStoreLine({ number: 1, text: '{"id":"s","role":"system","parts":[],"timestamp":1}', terminated: true }),
    ).toEqual({ kind: 'invalid', reason: 'message: unexpected role "system"' });
    expect(parseStoreLine({ number: 1, text: '{"role":"user","parts":[],"timestamp":1}', terminated: true })).toEqual({
      kind: 'invalid',
      reason: 'message: missing field "id"',
    });
    expect(parseStoreLine({ number: 1, text: '{"id":"s",', terminated: true })).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/^malformed JSON/),
    });
  });
});

describe('activePath (§7.6)', () => {
  const m = (id: string, parentId: string | null = null): StoreMessage => ({
    line: 0,
    id,
    role: 'user',
    synthetic: null,
    parts: [],
    timestampMs: 0,
    usage: null,
    interrupted: false,
    parentId,
  });

  it('is the whole file without leafId or parentId', () => {
    const all = [m('a'), m('b'), m('c')];
    expect(activePath(all, null)).toBe(all);
  });

  it('walks from the last line through parentId, else the previous line, leaving abandoned branches out', () => {
    // a ← b ← c (abandoned), then navigate to b: d.parentId = b, e follows d.
    const ids = activePath([m('a'), m('b'), m('c'), m('d', 'b'), m('e')], null).map((x) => x.id);
    expect(ids).toEqual(['a', 'b', 'd', 'e']);
  });

  it('starts from meta.leafId when set, and from the last line when leafId names no line', () => {
    const all = [m('a'), m('b'), m('c'), m('d', 'b')];
    expect(activePath(all, 'c').map((x) => x.id)).toEqual(['a', 'b', 'c']);
    expect(activePath(all, 'zzz').map((x) => x.id)).toEqual(['a', 'b', 'd']);
  });

  it('ends the walk at a missing parent', () => {
    expect(activePath([m('a'), m('b', 'gone'), m('c')], null).map((x) => x.id)).toEqual(['b', 'c']);
  });
});

describe('parseMeta', () => {
  it('reads the §12.2 meta.json', () => {
    const dir =
      'test/fixtures/freecode/home-newest/sessions/home__dev__work__toml_h_parser/7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34';
    expect(parseMeta(readFileSync(`${dir}/meta.json`, 'utf8'))).toEqual({
      kind: 'meta',
      meta: {
        id: '7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34',
        title: 'Fix TOML parser edge case',
        projectPath: '/home/dev/work/toml-parser',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        parentId: null,
        leafId: null,
      },
    });
  });

  it('reports malformed JSON', () => {
    expect(parseMeta('{"id": ')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/^meta.json: malformed JSON/),
    });
  });
});

describe('parseStoreLine in sizes mode', () => {
  it('keeps character counts and drops the text, still recognising the image caption', () => {
    const [poke, caption] = lines(`${SPEC}/other-line-shapes.jsonl`).map((l) => parseStoreLine(l, 'sizes'));
    expect(poke).toMatchObject({
      kind: 'message',
      message: { parts: [{ kind: 'text', text: null, chars: '[todo reminder text]'.length }] },
    });
    expect(caption).toMatchObject({ kind: 'message', message: { synthetic: 'image_caption' } });
    const tool = parseStoreLine(
      {
        number: 1,
        text: '{"id":"a","role":"assistant","parts":[{"type":"tool","tool":{"name":"bash","args":{}},"result":"12345"}],"timestamp":1}',
        terminated: true,
      },
      'sizes',
    );
    expect(tool).toMatchObject({
      message: { parts: [{ kind: 'tool', result: null, resultChars: 5, argsJson: '{}' }] },
    });
  });
});
