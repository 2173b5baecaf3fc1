/**
 * engine.md §12: three user messages with FREECODE_AUTO_COMPACT_TOKENS=12000, one new
 * MemoryService per message, the store trimmed at the third. Checks memory.json (§12.3: tokenCount
 * 128 = 77 + 10 + 6 + 19 + 5 + 11), messages.jsonl after the trim (§12.2) and the loop effects.
 */
import { describe, expect, it } from 'vitest';
import {
  ArraySessionStore,
  InMemoryMemoryStore,
  MemoryService,
  engineParams,
  parseTokenOverride,
  runCompaction,
} from '../../src/engine/index.js';
import type { HistoryMessage, LlmSummaryRequest, RunCompactionOutcome } from '../../src/engine/index.js';

const SESSION = '7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34';
const SUMMARY =
  "## Goal\n- Make parse() accept TOML inline tables.\n\n## Done\n- Read src/parser.ts; parseValue() does not handle '{'.\n\n## In Progress\n- (none)\n\n## Blocked\n- (none)\n\n## Decisions\n- Tests use node:test.\n\n## Relevant Files\n- src/parser.ts\n\n## Next Steps\n- Teach parseValue() to parse '{ k = v }' and add a test.";

const line = (id: string, role: 'user' | 'assistant', content: string, timestampMs: number): HistoryMessage => ({
  id,
  role,
  parts: [{ type: 'text', content }],
  timestampMs,
});

function runScenario() {
  const override = parseTokenOverride('12000');
  const params = engineParams({ autoCompactOverrideTokens: override.value ?? null });
  const memoryStore = new InMemoryMemoryStore();
  const sessionStore = new ArraySessionStore<HistoryMessage>();
  const requests: LlmSummaryRequest[] = [];
  const outcomes: RunCompactionOutcome[] = [];
  const contextLimit = 168_000;

  const afterResponse = (memory: MemoryService, measuredTokens: number, nowMs: number) => {
    if (!memory.shouldCompact(contextLimit, measuredTokens)) return;
    outcomes.push(
      runCompaction({
        memory,
        store: sessionStore,
        trigger: 'auto',
        compactOptions: {
          nowMs,
          llm: {
            model: 'claude-sonnet-4-5',
            summarize: (request) => (requests.push(request), { ok: true, content: SUMMARY }),
          },
        },
      }),
    );
  };

  // Message 1: a tool-calling response (text + read), then a text response.
  let memory = new MemoryService(SESSION, { params, store: memoryStore });
  sessionStore.append(line('0b6f6f5e', 'user', 'Why does parse() choke on inline tables?', 1_790_000_000_001));
  memory.addMessage('user', 'Why does parse() choke on inline tables?', 1_790_000_000_002);
  sessionStore.append(
    line('5a1e3c77', 'assistant', 'Let me read the parser first to see how tables are handled.', 1_790_000_009_120),
  );
  sessionStore.append({
    id: 'c9d8e7f6',
    role: 'assistant',
    parts: [
      {
        type: 'tool',
        id: 'tool-c9d8e7f6-0',
        name: 'read',
        args: { filePath: 'src/parser.ts' },
        result: '1\texport function parse(src: string) {\n2\t  // …\n',
      },
    ],
    timestampMs: 1_790_000_015_002,
  });
  memory.addToolTurn(
    'Let me read the parser first to see how tables are handled.',
    [
      {
        tool: 'read',
        args: { filePath: 'src/parser.ts' },
        output: '1\texport function parse(src: string) {\n2\t  // …\n',
      },
    ],
    1_790_000_015_005,
  );
  afterResponse(memory, 11_840, 1_790_000_015_010);
  sessionStore.append(
    line(
      'e1f2a3b4',
      'assistant',
      "Inline tables are parsed by parseValue(), which never expects '{'.",
      1_790_000_016_010,
    ),
  );
  memory.addMessage(
    'assistant',
    "Inline tables are parsed by parseValue(), which never expects '{'.",
    1_790_000_016_015,
  );
  afterResponse(memory, 13_050, 1_790_000_016_020);

  // Message 2.
  memory = new MemoryService(SESSION, { params, store: memoryStore });
  sessionStore.append(line('3f4e5d6c', 'user', 'Fix it and add a test.', 1_790_000_059_997));
  memory.addMessage('user', 'Fix it and add a test.', 1_790_000_059_998);
  sessionStore.append(
    line(
      '9c8b7a6f',
      'assistant',
      'Which test runner do you use: vitest or node:test? I will assume node:test.',
      1_790_000_062_005,
    ),
  );
  memory.addMessage(
    'assistant',
    'Which test runner do you use: vitest or node:test? I will assume node:test.',
    1_790_000_062_010,
  );
  afterResponse(memory, 13_190, 1_790_000_062_020);

  // Message 3: the compaction.
  memory = new MemoryService(SESSION, { params, store: memoryStore });
  sessionStore.append(line('4d5e6f70', 'user', 'node:test is fine.', 1_790_000_119_997));
  memory.addMessage('user', 'node:test is fine.', 1_790_000_119_998);
  sessionStore.append(line('6a7b8c9d', 'assistant', 'Understood, adding the test with node:test.', 1_790_000_122_505));
  memory.addMessage('assistant', 'Understood, adding the test with node:test.', 1_790_000_122_510);
  afterResponse(memory, 13_400, 1_790_000_124_900);

  return { memoryStore, sessionStore, requests, outcomes };
}

describe('the §12 worked example', () => {
  it('finds nothing to compact after message 1 / turn 1 and after message 2, then compacts once', () => {
    const { outcomes } = runScenario();
    expect(outcomes.map((o) => o.kind)).toEqual(['not-compacted', 'not-compacted', 'compacted']);
    expect(outcomes[0]).toMatchObject({ result: { reason: 'nothing to compact' }, logLevel: 'debug' });
    expect(outcomes[2]).toMatchObject({
      kind: 'compacted',
      result: { compacted: true, tokensBefore: 105, tokensAfter: 128, messagesBefore: 8, messagesAfter: 4 },
      effects: {
        invalidation: { source: 'compaction', detail: 'auto compaction: 105 \u2192 128 tokens' },
        cacheGenerationBump: true,
        compactOccurred: { beforeTokens: 105, afterTokens: 128 },
        resetMeasuredTokens: true,
      },
    });
  });

  it('writes memory.json as §12.3 shows (ids aside)', () => {
    const state = runScenario().memoryStore.load(SESSION);
    expect(state).toBeDefined();
    expect(
      state?.messages.map(({ role, content, timestamp, tokenCount }) => ({ role, content, timestamp, tokenCount })),
    ).toEqual([
      {
        role: 'user',
        content: 'Why does parse() choke on inline tables?',
        timestamp: 1_790_000_000_002,
        tokenCount: 10,
      },
      { role: 'user', content: 'Fix it and add a test.', timestamp: 1_790_000_059_998, tokenCount: 6 },
      {
        role: 'assistant',
        content: 'Which test runner do you use: vitest or node:test? I will assume node:test.',
        timestamp: 1_790_000_062_010,
        tokenCount: 19,
      },
      { role: 'user', content: 'node:test is fine.', timestamp: 1_790_000_119_998, tokenCount: 5 },
      {
        role: 'assistant',
        content: 'Understood, adding the test with node:test.',
        timestamp: 1_790_000_122_510,
        tokenCount: 11,
      },
    ]);
    expect(state?.summaries).toEqual([
      {
        id: `summary-${SESSION}-1790000124900`,
        createdAt: 1_790_000_124_900,
        originalMessageCount: 2,
        originalTokenCount: 54,
        summaryTokenCount: 77,
        content: SUMMARY,
      },
    ]);
    expect(state?.tokenCount).toBe(77 + 10 + 6 + 19 + 5 + 11);
    expect(state?.totalCompactions).toBe(1);
    expect(state?.lastCompactionAt).toBe(1_790_000_124_900);
  });

  it('summarized the two assistant messages of message 1, recorded with the tool transcript', () => {
    const { requests } = runScenario();
    expect(requests).toHaveLength(1);
    expect(requests[0]?.prompt).toBe(
      'Session transcript to summarize:\n\n' +
        'assistant: Let me read the parser first to see how tables are handled.\n' +
        'Tool read: {"filePath":"src/parser.ts"} -> 1 export function parse(src: string) { 2 // …\n\n' +
        "assistant: Inline tables are parsed by parseValue(), which never expects '{'.",
    );
  });

  it('trims messages.jsonl to the second-to-last user message (§12.2), same objects', () => {
    const { sessionStore } = runScenario();
    expect(sessionStore.getMessages().map((m) => m.id)).toEqual(['3f4e5d6c', '9c8b7a6f', '4d5e6f70', '6a7b8c9d']);
    expect(sessionStore.replaceCount).toBe(1);
  });

  it('is deterministic: the same input gives the same bytes', () => {
    const a = runScenario();
    const b = runScenario();
    expect(JSON.stringify(a.memoryStore.load(SESSION))).toBe(JSON.stringify(b.memoryStore.load(SESSION)));
    expect(JSON.stringify(a.sessionStore.getMessages())).toBe(JSON.stringify(b.sessionStore.getMessages()));
    expect(JSON.stringify(a.outcomes)).toBe(JSON.stringify(b.outcomes));
  });
});
