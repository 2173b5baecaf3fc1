import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMemory } from '../../../src/ingest/freecode/memory.js';

describe('parseMemory', () => {
  it('reads the §12.3 summaries with content and the user entries of the transcript', () => {
    const result = parseMemory(
      readFileSync(
        'test/fixtures/freecode/home-newest/memory/7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34/memory.json',
        'utf8',
      ),
    );
    if (result.kind !== 'memory') throw new Error(result.reason);
    expect(result.problems).toEqual([]);
    expect(result.memory.summaries).toHaveLength(1);
    expect(result.memory.summaries[0]).toMatchObject({
      id: 'summary-7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34-1790000124900',
      createdAtMs: 1790000124900,
      summaryTokenCount: 77,
    });
    expect(result.memory.summaries[0]?.content.startsWith('## Goal\n- Make parse() accept TOML inline tables.')).toBe(
      true,
    );
    expect(result.memory.userMessages.map((m) => m.content)).toEqual([
      'Why does parse() choke on inline tables?',
      'Fix it and add a test.',
      'node:test is fine.',
    ]);
  });

  it('drops a summary without content and reports it, keeping the others', () => {
    const result = parseMemory(
      '{"summaries":[{"id":"a","createdAt":1},{"id":"b","createdAt":2,"content":"ok"}],"messages":[]}',
    );
    expect(result).toMatchObject({
      kind: 'memory',
      problems: ['memory.json summaries[0]: missing field "content"'],
      memory: { summaries: [{ id: 'b' }] },
    });
  });

  it('reports malformed JSON (FreeCode itself would start over with an empty state, §4.1)', () => {
    expect(parseMemory('{"summaries": [')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/^memory.json: malformed JSON/),
    });
  });
});
