/**
 * Corrupted-input fuzzing of every log format (see harness.ts for the properties and oracles).
 * `npm test` runs a few dozen cases per property; `npm run fuzz` runs the same properties with
 * FUZZ_RUNS cases each.
 */
import { afterAll, describe, it } from 'vitest';
import { casesRun, type FormatSeed, fuzzSeed } from './harness.js';

const TIMEOUT = 3_600_000;

const SEEDS: readonly FormatSeed[] = [
  {
    format: 'claude-code',
    fixture: 'test/fixtures/claude-code',
    target: (file) => file.endsWith('.jsonl'),
    usagePath: /^message\.usage\.(input_tokens|output_tokens|cache_read_input_tokens|cache_creation_input_tokens)$/,
    deepPath: /^message\.content\.\d+\.input$/,
    // API error lines carry a zero usage that is never read (§1.3: they are model_error events).
    usageIgnored: (value) => {
      const line = value as { isApiErrorMessage?: boolean; message?: { model?: string } };
      return line.isApiErrorMessage === true || line.message?.model === '<synthetic>';
    },
  },
  {
    format: 'codex',
    fixture: 'test/fixtures/codex',
    target: (file) => file.endsWith('.jsonl'),
    usagePath:
      /^payload\.info\.last_token_usage\.(input_tokens|cached_input_tokens|output_tokens|reasoning_output_tokens)$/,
    deepPath: /^payload\.(output|message)$/,
    usageIgnored: (value, earlier) => {
      const total = (v: unknown): string | undefined => {
        const info = (v as { payload?: { type?: string; info?: { total_token_usage?: unknown } | null } }).payload;
        return info?.type === 'token_count' && info.info ? JSON.stringify(info.info.total_token_usage) : undefined;
      };
      const previous = earlier
        .map(total)
        .filter((t) => t !== undefined)
        .at(-1);
      return previous !== undefined && previous === total(value);
    },
  },
  {
    format: 'freecode',
    fixture: 'test/fixtures/freecode/home-newest',
    target: (file) => file.endsWith('.jsonl'),
    usagePath:
      /^(inputTokens|outputTokens|cacheReadTokens|cacheWriteTokens)$|^usage\.(inputTokens|outputTokens|cacheReadInputTokens|cacheWriteInputTokens)$/,
    deepPath: /^args$|^parts\.\d+\.tool\.args$/,
  },
  {
    format: 'opencode',
    fixture: 'test/fixtures/opencode',
    // The session file names the session: without it there is nothing to report against.
    target: (file) => file.includes('/message/') || file.includes('/part/'),
    usagePath: /^tokens\.(input|output|reasoning|cache\.read|cache\.write)$/,
    deepPath: /^state\.input$/,
    // A message whose counts are all zero reports no usage (§3.4): no request to corrupt.
    usageIgnored: (value) => {
      const tokens = (
        value as {
          tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } };
        }
      ).tokens;
      return [tokens?.input, tokens?.output, tokens?.reasoning, tokens?.cache?.read, tokens?.cache?.write].every(
        (v) => (v ?? 0) === 0,
      );
    },
    readThrough: (file, other) => {
      const message = /\/part\/([^/]+)\//.exec(file)?.[1];
      return message !== undefined && new RegExp(`/message/[^/]+/${message}\\.json$`).test(other);
    },
  },
  {
    format: 'openhands',
    fixture: 'test/fixtures/openhands',
    target: (file) => file.endsWith('.jsonl'),
    usagePath: /^metrics\.token_usages\.\d+\.(prompt_tokens|completion_tokens|cache_read_tokens|cache_write_tokens)$/,
    deepPath: null,
  },
  {
    format: 'swe-agent',
    fixture: 'test/fixtures/swe-agent',
    target: (file) => file === 'good.traj',
    usagePath: /^info\.model_stats\.(tokens_sent|tokens_received|api_calls)$/,
    deepPath: null,
  },
];

for (const seed of SEEDS) {
  describe(`fuzz: ${seed.format}`, () => {
    const fuzz = fuzzSeed(seed);
    it(
      'breaking corruptions cost exactly their own records, one issue each, and never crash a command',
      fuzz.breaking,
      TIMEOUT,
    );
    it(
      'invalid token counts are one "usage invalid" issue each; no request is dropped or priced from them',
      fuzz.usage,
      TIMEOUT,
    );
    it('a BOM and escaped control characters change nothing and never reach the terminal raw', fuzz.harmless, TIMEOUT);
  });
}

afterAll(() => {
  const perFormat = new Map<string, number>();
  for (const [key, count] of casesRun)
    perFormat.set(key.split(' ')[0] ?? key, (perFormat.get(key.split(' ')[0] ?? key) ?? 0) + count);
  console.log(`fuzz cases: ${[...perFormat].map(([format, count]) => `${format} ${count}`).join(', ')}`);
});
