/**
 * Measured usage as logs record it → `MeasuredUsage` (pricing.md §1, engine.md §10). FreeCode's
 * `inputTokens` is inclusive (uncached + cache read + cache write), so the uncached part is the
 * difference, never `inputTokens` itself, and writes are never added on top.
 */
import type { MeasuredUsage } from '../session/model.js';
import { checkTokenCount, isTokenCount, MAX_TOKENS_PER_REQUEST, USAGE_INVALID } from './token-count.js';

/** Token fields as read from a log line; each may be absent or, in a bad line, not a count at all. */
export type RawUsage = {
  readonly inputTokens?: unknown;
  readonly outputTokens?: unknown;
  readonly cacheReadTokens?: unknown;
  readonly cacheWriteTokens?: unknown;
  readonly reasoningTokens?: unknown;
};

/** The normalized usage (null when the line reports none) and what had to be repaired, if anything. */
export type UsageReading = {
  readonly usage: MeasuredUsage | null;
  readonly problem: string | null;
  /** True when the line reports usage that cannot be a count: the request exists, its usage is unknown. */
  readonly invalid?: boolean;
};

function readProblem(name: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const checked = checkTokenCount(name, value);
  return checked.ok ? null : checked.reason;
}

/**
 * Normalizes inclusive usage so that `promptTokens = uncached + read + write`. A token field that
 * is present but not a count (`token-count.ts`: not a safe non-negative integer, or above
 * `MAX_TOKENS_PER_REQUEST`) makes the whole usage invalid: usage null, `invalid` true, and a
 * problem starting "usage invalid" (the request is kept but never priced: guessing the other
 * fields would be a silently wrong number). Repairs, each reported as the `problem`: a missing `inputTokens` (with other counts present) is taken as read + write; when
 * read + write exceed `inputTokens` the prompt is taken as `read + write` with nothing uncached,
 * i.e. `promptTokens = read + write + max(0, inputTokens − read − write)`. A line with none of
 * input/output/read/write reports no usage (null), which is not a problem.
 */
export function normalizeUsage(raw: RawUsage): UsageReading {
  // Counts as numbers, undefined when absent: every line is read here, so no object per count.
  const input = countValue(raw.inputTokens);
  const output = countValue(raw.outputTokens);
  const read = countValue(raw.cacheReadTokens);
  const write = countValue(raw.cacheWriteTokens);
  const reasoning = countValue(raw.reasoningTokens);
  if (
    input === NOT_A_COUNT ||
    output === NOT_A_COUNT ||
    read === NOT_A_COUNT ||
    write === NOT_A_COUNT ||
    reasoning === NOT_A_COUNT
  ) {
    return invalidUsage(raw);
  }
  if (input === undefined && output === undefined && read === undefined && write === undefined) {
    return { usage: null, problem: null };
  }
  const cacheReadTokens = read ?? 0;
  const cacheWriteTokens = write ?? 0;
  const cachedTokens = cacheReadTokens + cacheWriteTokens;
  let promptTokens: number;
  let problem: string | null = null;
  if (input === undefined) {
    promptTokens = cachedTokens;
    problem = `inputTokens missing; prompt taken as cache read + write (${cachedTokens})`;
  } else if (cachedTokens > input) {
    promptTokens = cachedTokens;
    problem = `cache read + write (${cachedTokens}) exceed the inclusive inputTokens (${input}); prompt taken as ${cachedTokens}`;
  } else {
    promptTokens = input;
  }
  if (promptTokens > MAX_TOKENS_PER_REQUEST) {
    const reason = `prompt of ${promptTokens} tokens is above ${MAX_TOKENS_PER_REQUEST}, more than any one request can hold`;
    return { usage: null, problem: `${USAGE_INVALID}: ${reason}`, invalid: true };
  }
  if (output === undefined) {
    const missing = 'outputTokens missing; taken as 0';
    problem = problem === null ? missing : `${problem}; ${missing}`;
  }
  return {
    usage: {
      promptTokens,
      uncachedInputTokens: promptTokens - cachedTokens,
      cacheReadTokens,
      cacheWriteTokens,
      cacheWrite5mTokens: null,
      cacheWrite1hTokens: null,
      outputTokens: output ?? 0,
      reasoningTokens: reasoning ?? null,
    },
    problem,
  };
}

/** `countValue` of a value that is present but not a token count. */
const NOT_A_COUNT = -1;

function countValue(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  return isTokenCount(value) ? value : NOT_A_COUNT;
}

/** The reading of a line with at least one value that is not a count: each one named, in field order. */
function invalidUsage(raw: RawUsage): UsageReading {
  const problems = [
    readProblem('inputTokens', raw.inputTokens),
    readProblem('outputTokens', raw.outputTokens),
    readProblem('cacheReadTokens', raw.cacheReadTokens),
    readProblem('cacheWriteTokens', raw.cacheWriteTokens),
    readProblem('reasoningTokens', raw.reasoningTokens),
  ].filter((problem) => problem !== null);
  return { usage: null, problem: `${USAGE_INVALID}: ${problems.join('; ')}`, invalid: true };
}
