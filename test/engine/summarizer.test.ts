import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classifyWorkStatus,
  HEURISTIC_SUMMARY_LIMITS,
  heuristicSummaryContent,
  makeSummary,
  summarizeMessages,
} from '../../src/engine/index.js';
import type { SummarizableMessage, SummarizeInput, SummaryMemo } from '../../src/engine/index.js';

const m = (role: 'user' | 'assistant', content: string): SummarizableMessage => ({
  role,
  content,
  tokenCount: Math.ceil(content.length / 4),
});

describe('heuristic summarizer layout (engine.md §3.2)', () => {
  it('renders every section in order, one blank line between them', () => {
    const content = heuristicSummaryContent({
      sessionId: 's',
      messages: [
        m('user', 'Fix the parser in packages/toml/src/parse.ts'),
        m('assistant', 'Reading it.\nTool read: {"filePath":"packages/toml/src/parse.ts"} -> 1 export …'),
        m('assistant', 'Currently rewriting parseValue()'),
        m('assistant', 'Tests failed: 2 errors in docs/guide.md'),
        m('assistant', 'Done with the rewrite.'),
      ],
    });
    expect(content).toBe(
      [
        '## Goal',
        '- Fix the parser in packages/toml/src/parse.ts',
        '',
        '## Done',
        '- Done with the rewrite.',
        '',
        '## In Progress',
        '- Currently rewriting parseValue()',
        '',
        '## Blocked',
        '- Tests failed: 2 errors in docs/guide.md',
        '',
        '## Decisions',
        '- Tools used: read',
        '- (see Recent Progress for details)',
        '',
        '## Recent Progress',
        '- Currently rewriting parseValue()',
        '- Tests failed: 2 errors in docs/guide.md',
        '- Done with the rewrite.',
        '',
        '## Relevant Files',
        '- packages/toml/src/parse.ts',
        '- docs/guide.md',
        '',
        '## Next Steps',
        '- This summary replaces 5 older messages that were compacted away',
        '- Continue from where the session left off',
      ].join('\n'),
    );
  });

  it('writes "(none)" sections and the default goal when there is nothing to say', () => {
    expect(heuristicSummaryContent({ sessionId: 's', messages: [] })).toBe(
      [
        '## Goal',
        '- Continue the current coding session.',
        '',
        '## Done',
        '- (none)',
        '',
        '## In Progress',
        '- (none)',
        '',
        '## Blocked',
        '- (none)',
        '',
        '## Decisions',
        '- (none)',
        '',
        '## Recent Progress',
        '- (none)',
        '',
        '## Relevant Files',
        '- (none)',
        '',
        '## Next Steps',
        '- This summary replaces 0 older messages that were compacted away',
      ].join('\n'),
    );
  });

  it('chains the previous summary, clipped to 1,500 chars + "...", as raw text after the goal', () => {
    const previous = 'p'.repeat(1_600);
    const content = heuristicSummaryContent({ sessionId: 's', previousSummary: previous, messages: [m('user', 'go')] });
    expect(content.startsWith(`## Goal\n- go\n\n## Previous Summary\n${'p'.repeat(1_500)}...\n\n## Done`)).toBe(true);
    expect(heuristicSummaryContent({ sessionId: 's', previousSummary: '', messages: [] })).not.toContain(
      'Previous Summary',
    );
  });

  it('clips the goal to 240 chars and status lines to 120, with three ASCII dots', () => {
    const long = `Completed ${'x'.repeat(300)}`;
    const content = heuristicSummaryContent({ sessionId: 's', messages: [m('user', long), m('assistant', long)] });
    expect(content).toContain(`## Goal\n- ${long.slice(0, 240)}...\n`);
    expect(content).toContain(`## Done\n- ${long.slice(0, 120)}...\n`);
    expect(content).toContain(`## Recent Progress\n- ${long.slice(0, 200)}...\n`);
  });

  it('caps buckets at 5 done, 3 in progress, 3 blocked (first seen) and does not repeat a line', () => {
    const messages = [
      ...Array.from({ length: 7 }, (_, i) => m('assistant', `done ${i}`)),
      m('assistant', 'done 0'),
      ...Array.from({ length: 5 }, (_, i) => m('assistant', `currently ${i}`)),
      ...Array.from({ length: 5 }, (_, i) => m('assistant', `error ${i}`)),
    ];
    const content = heuristicSummaryContent({ sessionId: 's', messages });
    expect(content).toContain('## Done\n- done 0\n- done 1\n- done 2\n- done 3\n- done 4\n\n');
    expect(content).toContain('## In Progress\n- currently 0\n- currently 1\n- currently 2\n\n');
    expect(content).toContain('## Blocked\n- error 0\n- error 1\n- error 2\n\n');
    expect(HEURISTIC_SUMMARY_LIMITS.doneLines).toBe(5);
  });

  it('finds paths only under apps/, packages/ and docs/, deduplicated, at most 15', () => {
    const paths = Array.from({ length: 20 }, (_, i) => `apps/a/f${i}.ts`);
    const content = heuristicSummaryContent({
      sessionId: 's',
      messages: [
        m('assistant', `${paths.join(' ')} apps/a/f0.ts src/x.ts lib/y.ts (docs/z.md) 'packages/q' myapps/w.ts`),
      ],
    });
    const files = content.split('## Relevant Files\n')[1]?.split('\n\n')[0]?.split('\n') ?? [];
    expect(files).toHaveLength(15);
    expect(files[0]).toBe('- apps/a/f0.ts');
    expect(content).not.toContain('src/x.ts');
    expect(content).not.toContain('lib/y.ts');
    // No leading word boundary in FreeCode's pattern: "myapps/w.ts" yields "apps/w.ts" (beyond the cap here).
    const unbounded = heuristicSummaryContent({
      sessionId: 's',
      messages: [m('assistant', 'see myapps/w.ts and (docs/z.md)')],
    });
    expect(unbounded).toContain('## Relevant Files\n- apps/w.ts\n- docs/z.md\n');
  });

  it('uses the first user message of the summarized set as goal and the last three assistant messages as progress', () => {
    const content = heuristicSummaryContent({
      sessionId: 's',
      messages: [
        m('assistant', 'a1'),
        m('user', 'second prompt'),
        m('assistant', 'a2'),
        m('assistant', 'a3'),
        m('user', 'third'),
        m('assistant', 'a4'),
      ],
    });
    expect(content).toContain('## Goal\n- second prompt\n');
    expect(content).toContain('## Recent Progress\n- a2\n- a3\n- a4\n');
    expect(content).toContain('- This summary replaces 6 older messages that were compacted away');
  });
});

/**
 * §3.2 read plainly: each message's bucket by `classifyWorkStatus`, the tool names and file paths
 * of all the messages in first-match order across them (the summarizer gathers them message by
 * message, through a memo of each content's reading).
 */
function referenceSummary(input: SummarizeInput): string {
  const limits = HEURISTIC_SUMMARY_LIMITS;
  const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}...`);
  const unique = (pattern: RegExp, group: 0 | 1) => {
    const found = new Set<string>();
    for (const message of input.messages)
      for (const match of message.content.matchAll(pattern)) if (match[group] !== undefined) found.add(match[group]);
    return [...found];
  };
  const buckets = { blocked: [] as string[], 'in-progress': [] as string[], done: [] as string[] };
  for (const message of input.messages) {
    const status = classifyWorkStatus(message.content);
    if (status === null) continue;
    const line = clip(message.content, limits.statusLineChars);
    if (!buckets[status].includes(line)) buckets[status].push(line);
  }
  const bullets = (items: readonly string[]) => (items.length > 0 ? items.map((item) => `- ${item}`) : ['- (none)']);
  const tools = unique(/Tool (\w+):/g, 1);
  const users = input.messages.filter((message) => message.role === 'user');
  const assistants = input.messages.filter((message) => message.role === 'assistant');
  const sections = [
    ['## Goal', `- ${clip(users[0]?.content ?? 'Continue the current coding session.', limits.goalChars)}`],
    ...(input.previousSummary
      ? [['## Previous Summary', clip(input.previousSummary, limits.previousSummaryChars)]]
      : []),
    ['## Done', ...bullets(buckets.done.slice(0, limits.doneLines))],
    ['## In Progress', ...bullets(buckets['in-progress'].slice(0, limits.inProgressLines))],
    ['## Blocked', ...bullets(buckets.blocked.slice(0, limits.blockedLines))],
    [
      '## Decisions',
      ...(tools.length > 0
        ? [`- Tools used: ${tools.join(', ')}`, '- (see Recent Progress for details)']
        : ['- (none)']),
    ],
    [
      '## Recent Progress',
      ...bullets(assistants.slice(-3).map((message) => clip(message.content, limits.recentProgressChars))),
    ],
    ['## Relevant Files', ...bullets(unique(/(?:apps|packages|docs)\/[^\s)`'"]+/g, 0).slice(0, limits.files))],
    [
      '## Next Steps',
      `- This summary replaces ${input.messages.length} older messages that were compacted away`,
      ...(assistants.length > 0 ? ['- Continue from where the session left off'] : []),
    ],
  ];
  return sections.map((lines) => lines.join('\n')).join('\n\n');
}

describe('heuristic summarizer, with and without a memo of contents', () => {
  // Contents made of the pieces the summary reads: tool lines, paths, status words in any case,
  // negations, repeats (the same content in several messages and inputs).
  const piece = fc.constantFrom(
    'Tool read: {"filePath":"packages/a/x.ts"} -> ok',
    'Tool bash: npm test -> failed: 2 errors',
    'Tool edit:',
    'Tool  spaced:',
    'see apps/web/page.tsx and docs/guide.md',
    "(packages/core/index.ts) 'docs/q'",
    'myapps/w.ts',
    'Currently working on it',
    'DONE',
    'finished',
    'Blocked by review',
    'no errors',
    'fixed issues',
    'waiting',
    'plain text',
    '\u0130stanbul',
    'K\u212aelvin',
    '…',
    '\n',
  );
  const content = fc.array(piece, { maxLength: 6 }).map((pieces) => pieces.join(' '));
  const message = fc.record({ role: fc.constantFrom('user', 'assistant', 'system'), content });
  const input = fc.record({
    messages: fc.array(message, { maxLength: 12 }),
    previousSummary: fc.option(fc.constantFrom('', 'earlier summary', 'x'.repeat(2_000)), { nil: undefined }),
  });

  it('gives §3.2 read plainly, whether the contents are read afresh or from a memo shared by many summaries', () => {
    const memo: SummaryMemo = new Map();
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 4 }), (inputs) => {
        for (const raw of inputs) {
          const summarized: SummarizeInput = {
            sessionId: 's',
            ...(raw.previousSummary === undefined ? {} : { previousSummary: raw.previousSummary }),
            messages: raw.messages.map((m) => ({ ...m, tokenCount: m.content.length })),
          };
          const expected = referenceSummary(summarized);
          expect(heuristicSummaryContent(summarized)).toBe(expected);
          expect(heuristicSummaryContent(summarized, memo)).toBe(expected);
          expect(summarizeMessages(summarized, 7, memo).content).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
    expect(memo.size).toBeGreaterThan(0);
  });
});

describe('makeSummary (engine.md §3.1)', () => {
  it('wraps content with ids and counts from its arguments', () => {
    const input = { sessionId: 'sess', messages: [m('user', 'abcdefgh'), m('assistant', 'abc')] };
    expect(makeSummary(input, '12345', 1_790_000_124_900)).toEqual({
      id: 'summary-sess-1790000124900',
      createdAt: 1_790_000_124_900,
      originalMessageCount: 2,
      originalTokenCount: 3,
      summaryTokenCount: 2,
      content: '12345',
    });
    const heuristic = summarizeMessages(input, 5);
    expect(heuristic.content).toBe(heuristicSummaryContent(input));
    expect(heuristic.summaryTokenCount).toBe(Math.ceil(heuristic.content.length / 4));
  });
});
