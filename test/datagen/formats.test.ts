/**
 * FreeCode's on-disk shapes the generator reproduces: 20-character rollout ids (engine.md §6.2,
 * checked against the §12.1 example), UUIDs with a forced prefix, `formatSessionDirName` (§7.1),
 * the store line key order (§7.3), the heuristic summary layout (§3.2) and the tool transcript (§3.5).
 */
import { describe, expect, it } from 'vitest';
import { rolloutEventId, uuidV4 } from '../../src/datagen/ids.js';
import { Rng } from '../../src/datagen/rng.js';
import { formatSessionDirName, storeLine } from '../../src/datagen/store.js';
import { renderToolTranscript, renderTurnForMemory, summarizeMessages } from '../../src/datagen/summarizer.js';
import type { MemoryMessage } from '../../src/datagen/selector.js';

describe('ids', () => {
  it('encodes the epoch-ms time in the first 10 characters, as in §12.1', () => {
    const rng = new Rng(1);
    expect(rolloutEventId(1_790_000_000_000, rng).slice(0, 10)).toBe('01M3250V00');
    expect(rolloutEventId(1_790_000_000_005, rng).slice(0, 10)).toBe('01M3250V05');
    expect(rolloutEventId(1_790_000_009_100, rng).slice(0, 10)).toBe('01M32513WC');
    expect(rolloutEventId(1_790_000_009_100, rng)).toMatch(/^[0-9A-HJKMNP-TV-Z]{20}$/);
  });

  it('builds version-4 UUIDs, keeping a given 8-hex prefix', () => {
    const rng = new Rng(7);
    const id = uuidV4(rng, '4ba54e41');
    expect(id).toMatch(/^4ba54e41-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidV4(rng)).not.toBe(uuidV4(rng));
  });
});

describe('session store', () => {
  it('formats project directories like formatSessionDirName (§7.1)', () => {
    expect(formatSessionDirName('/home/ayan/Project/my-project')).toBe('home__ayan__Project__my_h_project');
    expect(formatSessionDirName('C:\\Users\\john\\app')).toBe('C__Users__john__app');
  });

  it('writes synthetic first, then id, role, parts, timestamp, usage (§7.3)', () => {
    const line = storeLine({
      synthetic: 'steer',
      id: 'x',
      role: 'user',
      parts: [{ type: 'text', content: 'hi' }],
      timestamp: 5,
      usage: { inputTokens: 1 },
      responseIndex: null,
    });
    expect(line).toBe(
      '{"synthetic":"steer","id":"x","role":"user","parts":[{"type":"text","content":"hi"}],"timestamp":5,"usage":{"inputTokens":1}}',
    );
  });
});

describe('heuristic summary (§3.2)', () => {
  const m = (role: MemoryMessage['role'], content: string): MemoryMessage => ({
    id: content.slice(0, 8),
    role,
    content,
    timestamp: 0,
    tokenCount: Math.ceil(content.length / 4),
  });

  it('has the sections in order, buckets with negation, tools, files under apps/ packages/ docs/ only', () => {
    const content = summarizeMessages(
      [
        m('user', 'Fix the flaky export in packages/ingest/src/queue.ts please'),
        m('assistant', 'The build failed again.\nTool bash: {"command":"pnpm test"} -> 3 failed'),
        m('assistant', 'No errors now, the migration is done. See docs/runbook.md and src/other.ts'),
        m('assistant', 'I am currently working on apps/web/src/page.tsx'),
      ],
      'older summary',
    );
    expect(content.split('\n\n').map((section) => section.split('\n')[0])).toEqual([
      '## Goal',
      '## Previous Summary',
      '## Done',
      '## In Progress',
      '## Blocked',
      '## Decisions',
      '## Recent Progress',
      '## Relevant Files',
      '## Next Steps',
    ]);
    expect(content).toContain('## Goal\n- Fix the flaky export in packages/ingest/src/queue.ts please');
    expect(content).toContain('## Done\n- No errors now, the migration is done.');
    expect(content).toContain('## Blocked\n- The build failed again.');
    expect(content).toContain('- Tools used: bash');
    expect(content).toContain(
      '## Relevant Files\n- packages/ingest/src/queue.ts\n- docs/runbook.md\n- apps/web/src/page.tsx',
    );
    expect(content).not.toContain('- src/other.ts');
    expect(content).toContain(
      '- This summary replaces 4 older messages that were compacted away\n- Continue from where the session left off',
    );
  });

  it('tool transcript: whitespace collapsed, clipped with …, oldest lines dropped beyond the budget', () => {
    const long = 'x '.repeat(300);
    const lines = renderToolTranscript(
      [{ tool: 'read', args: { filePath: 'a.ts' }, output: long, error: undefined }],
      4_000,
    );
    expect(lines).toBe(`Tool read: {"filePath":"a.ts"} -> ${long.trim().slice(0, 200)}…`);
    const many = Array.from({ length: 30 }, (_, i) => ({
      tool: 'grep',
      args: { pattern: `p${i}` },
      output: 'y'.repeat(180),
      error: undefined,
    }));
    const rendered = renderToolTranscript(many, 4_000);
    expect(rendered.startsWith('[')).toBe(true);
    expect(rendered).toMatch(/^\[\d+ earlier tool calls omitted\]/);
    expect(renderTurnForMemory('', [{ tool: 'edit', args: {}, output: '', error: 'Error: nope' }], 4_000)).toBe(
      'Tool edit: {} -> failed: Error: nope',
    );
  });
});
