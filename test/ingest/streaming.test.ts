import { createReadStream, createWriteStream, mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverSessions, loadSession } from '../../src/ingest/index.js';
import { linesFromChunks, readLinesSync } from '../../src/ingest/lines.js';

const LINES = 2_400;
const RESULT_CHARS = 32_000;
let root = '';
let file = '';
let longestLine = 0;
let fileBytes = 0;

/** Writes a ~40 MB messages.jsonl (text + big tool results, usage on each response) without holding it in memory. */
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'cachecost-stream-'));
  const dir = join(root, 'sessions', 'home__dev__big', 'big-session');
  mkdirSync(dir, { recursive: true });
  file = join(dir, 'messages.jsonl');
  const out = createWriteStream(file);
  for (let i = 0; i < LINES; i += 1) {
    const line =
      i % 2 === 0
        ? JSON.stringify({
            id: `m${i}`,
            role: 'user',
            parts: [{ type: 'text', content: `step ${i}: continue` }],
            timestamp: 1_800_000_000_000 + i,
          })
        : JSON.stringify({
            id: `m${i}`,
            role: 'assistant',
            parts: [
              {
                type: 'tool',
                tool: { name: 'read', args: { filePath: `src/f${i}.ts` } },
                result: `${i}`.padEnd(RESULT_CHARS, 'x'),
              },
            ],
            timestamp: 1_800_000_000_000 + i,
            usage: {
              inputTokens: 1000 + i,
              outputTokens: 5,
              cacheReadInputTokens: 900,
              cacheWriteInputTokens: 100 + i,
            },
          });
    longestLine = Math.max(longestLine, line.length);
    fileBytes += Buffer.byteLength(line) + 1;
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('streaming a large log', () => {
  it('holds at most one read chunk when the first line comes out, and never a string longer than a line', async () => {
    expect(fileBytes).toBeGreaterThan(35_000_000);
    let bytesPulled = 0;
    let bytesAtFirstLine = -1;
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
        // createReadStream yields Buffers; the check keeps the type honest without a cast.
        if (!Buffer.isBuffer(chunk)) throw new Error('expected a Buffer');
        bytesPulled += chunk.length;
        yield chunk;
      }
    }
    let count = 0;
    let maxText = 0;
    for await (const line of linesFromChunks(counted())) {
      if (count === 0) bytesAtFirstLine = bytesPulled;
      count += 1;
      maxText = Math.max(maxText, line.text.length);
    }
    expect(count).toBe(LINES);
    expect(bytesAtFirstLine).toBeLessThanOrEqual(1 << 20);
    expect(maxText).toBe(longestLine);
    expect(bytesPulled).toBe(fileBytes);
  });

  it('reads the file through readLinesSync the same way, line by line', () => {
    let count = 0;
    let last = '';
    for (const line of readLinesSync(file)) {
      count += 1;
      last = line.text;
      expect(line.terminated).toBe(true);
    }
    expect(count).toBe(LINES);
    expect(last.startsWith('{"id":"m2399"')).toBe(true);
  });

  it('ingests it as a session (sizes only), every request and character accounted for', async () => {
    const { sources } = await discoverSessions([root]);
    expect(sources).toHaveLength(1);
    const [source] = sources;
    if (source === undefined) throw new Error('no session');
    const session = await loadSession(source, { content: 'sizes' });
    expect(session.issues).toEqual([]);
    expect(session.requests).toHaveLength(LINES / 2);
    expect(session.items.every((item) => item.text === null)).toBe(true);
    const resultChars = session.items.reduce((sum, item) => sum + (item.kind === 'tool_result' ? item.chars : 0), 0);
    expect(resultChars).toBe((LINES / 2) * RESULT_CHARS);
  });
});
