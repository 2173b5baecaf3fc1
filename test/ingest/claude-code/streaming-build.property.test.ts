import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildClaudeSession,
  type ClaudeFileRecords,
  type ClaudeSessionFiles,
  loadClaudeSession,
  parseClaudeLine,
} from '../../../src/ingest/claude-code/index.js';
import type { ContentMode } from '../../../src/ingest/content-mode.js';
import type { IngestIssue } from '../../../src/session/model.js';

/** One line of a generated transcript (formats.md §1.2–§1.4). */
type GenLine =
  | { readonly kind: 'assistant'; readonly message: string; readonly output: number; readonly minute: number }
  | { readonly kind: 'user'; readonly minute: number }
  | { readonly kind: 'unknown'; readonly type: string }
  | { readonly kind: 'broken' };

type GenFile = { readonly agentId: string | null; readonly lines: readonly GenLine[] };

const genLine: fc.Arbitrary<GenLine> = fc.oneof(
  fc.record({
    kind: fc.constant('assistant' as const),
    message: fc.constantFrom('msg_a', 'msg_b', 'msg_c', 'msg_d', 'msg_e'),
    output: fc.oneof(fc.constant(0), fc.nat({ max: 900 })),
    minute: fc.nat({ max: 50 }),
  }),
  fc.record({ kind: fc.constant('user' as const), minute: fc.nat({ max: 50 }) }),
  fc.record({ kind: fc.constant('unknown' as const), type: fc.constantFrom('x-new', 'y-new') }),
  fc.constant({ kind: 'broken' as const }),
);

const genFiles: fc.Arbitrary<GenFile[]> = fc.array(
  fc.record({
    agentId: fc.option(fc.constantFrom('a1', 'a2'), { nil: null }),
    lines: fc.array(genLine, { maxLength: 8 }),
  }),
  { minLength: 1, maxLength: 5 },
);

function lineText(line: GenLine, file: number, n: number): string {
  const uuid = `f${file}-u${n}`;
  const timestamp = (minute: number): string => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
  switch (line.kind) {
    case 'assistant':
      // Output 0 with prompt 0: a response that reports no usage unless another line of it does.
      return JSON.stringify({
        type: 'assistant',
        uuid,
        sessionId: 'S',
        timestamp: timestamp(line.minute),
        requestId: `req_${line.message}`,
        message: {
          id: line.message,
          model: 'claude-sonnet-4-6',
          content: [{ type: 'text', text: `t${n}` }],
          usage: {
            input_tokens: line.output === 0 ? 0 : 1,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 0,
            output_tokens: line.output,
          },
        },
      });
    case 'user':
      return JSON.stringify({
        type: 'user',
        uuid,
        sessionId: 'S',
        timestamp: timestamp(line.minute),
        message: { role: 'user', content: `hello ${n}` },
      });
    case 'unknown':
      return JSON.stringify({ type: line.type, uuid });
    case 'broken':
      return '{"type":"user", "message":';
  }
}

const root = mkdtempSync(join(tmpdir(), 'cachecost-stream-build-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let runs = 0;

describe('Claude Code session built as its files are read (property)', () => {
  // Checked against deliberate bugs: reading a session's several main transcripts in the order
  // they were found instead of by first timestamp, and settling a request's usage when its own
  // file ends (so a better line in a later file is lost); each makes this property fail.
  it('equals the build from every record held at once, and each response has its best line over all files', async () => {
    await fc.assert(
      fc.asyncProperty(genFiles, fc.constantFrom<ContentMode>('usage', 'sizes', 'text'), async (files, content) => {
        const dir = join(root, String((runs += 1)));
        const paths = files.map((file, i) =>
          join(dir, file.agentId === null ? `S-${i}.jsonl` : `agent-${file.agentId}-${i}.jsonl`),
        );
        mkdirSync(dir, { recursive: true });
        files.forEach((file, i) =>
          writeFileSync(paths[i] ?? '', file.lines.map((line, n) => `${lineText(line, i, n)}\n`).join('')),
        );
        const input: ClaudeSessionFiles = {
          sessionId: 'S',
          mainFiles: paths.filter((_, i) => files[i]?.agentId === null),
          agentFiles: paths.flatMap((path, i) => {
            const agentId = files[i]?.agentId ?? null;
            return agentId === null ? [] : [{ file: path, agentId }];
          }),
          parentSessionId: null,
          projectDir: null,
        };
        const streamed = await loadClaudeSession(input, { content, claims: new Map() });

        // The same records, all parsed first, issues listed main files first, then agent files.
        const issues: IngestIssue[] = [];
        const held: ClaudeFileRecords[] = [];
        const listed = [
          ...input.mainFiles.map((file) => ({ file, agentId: null })),
          ...input.agentFiles.map((agent) => ({ file: agent.file, agentId: agent.agentId })),
        ];
        for (const { file, agentId } of listed) {
          const i = paths.indexOf(file);
          const records: ClaudeFileRecords['records'][number][] = [];
          (files[i]?.lines ?? []).forEach((line, n) => {
            const parsed = parseClaudeLine({ number: n + 1, text: lineText(line, i, n), terminated: true }, content);
            if (parsed.kind === 'invalid') issues.push({ file, line: n + 1, reason: parsed.reason });
            else if (parsed.kind === 'record' && parsed.record.kind !== 'ignored')
              records.push({ line: n + 1, record: parsed.record });
          });
          held.push({ file, agentId, records });
        }
        const built = buildClaudeSession(
          { sessionId: 'S', files: held, issues, parentSessionId: null, projectDir: null, claims: new Map() },
          { content },
        );
        expect(streamed).toEqual(built);

        // Independently of the builder: a response's usage is its largest output over every file (§1.4, §1.5).
        const best = new Map<string, number>();
        for (const file of files)
          for (const line of file.lines)
            if (line.kind === 'assistant') best.set(line.message, Math.max(best.get(line.message) ?? 0, line.output));
        const byNumber = (a: number, b: number): number => a - b;
        const outputs = streamed.requests.map((request) => request.usage?.outputTokens ?? 0).sort(byNumber);
        expect(outputs).toEqual([...best.values()].sort(byNumber));
      }),
      { numRuns: 150 },
    );
  });
});
