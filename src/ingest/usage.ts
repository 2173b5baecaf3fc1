/**
 * Measured usage as logs record it → `MeasuredUsage` (pricing.md §1, engine.md §10). FreeCode's
 * `inputTokens` is inclusive (uncached + cache read + cache write), so the uncached part is the
 * difference, never `inputTokens` itself, and writes are never added on top.
 */
import type { MeasuredUsage } from '../session/model.js';
import { checkTokenCount, MAX_TOKENS_PER_REQUEST, USAGE_INVALID } from './token-count.js';

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

type Count = { readonly value: number | undefined; readonly problem: string | null };

function readCount(name: string, value: unknown): Count {
  if (value === undefined || value === null) return { value: undefined, problem: null };
  const checked = checkTokenCount(name, value);
  return checked.ok ? { value: checked.value, problem: null } : { value: undefined, problem: checked.reason };
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
  const input = readCount('inputTokens', raw.inputTokens);
  const output = readCount('outputTokens', raw.outputTokens);
  const read = readCount('cacheReadTokens', raw.cacheReadTokens);
  const write = readCount('cacheWriteTokens', raw.cacheWriteTokens);
  const reasoning = readCount('reasoningTokens', raw.reasoningTokens);
  const problems = [input, output, read, write, reasoning].flatMap((count) =>
    count.problem === null ? [] : [count.problem],
  );
  if (problems.length > 0) return { usage: null, problem: `${USAGE_INVALID}: ${problems.join('; ')}`, invalid: true };

  if (
    input.value === undefined &&
    output.value === undefined &&
    read.value === undefined &&
    write.value === undefined
  ) {
    return { usage: null, problem: null };
  }
  const cacheReadTokens = read.value ?? 0;
  const cacheWriteTokens = write.value ?? 0;
  const cachedTokens = cacheReadTokens + cacheWriteTokens;
  let promptTokens: number;
  if (input.value === undefined) {
    promptTokens = cachedTokens;
    problems.push(`inputTokens missing; prompt taken as cache read + write (${cachedTokens})`);
  } else if (cachedTokens > input.value) {
    promptTokens = cachedTokens;
    problems.push(
      `cache read + write (${cachedTokens}) exceed the inclusive inputTokens (${input.value}); prompt taken as ${cachedTokens}`,
    );
  } else {
    promptTokens = input.value;
  }
  if (promptTokens > MAX_TOKENS_PER_REQUEST) {
    const reason = `prompt of ${promptTokens} tokens is above ${MAX_TOKENS_PER_REQUEST}, more than any one request can hold`;
    return { usage: null, problem: `${USAGE_INVALID}: ${reason}`, invalid: true };
  }
  if (output.value === undefined) problems.push('outputTokens missing; taken as 0');
  return {
    usage: {
      promptTokens,
      uncachedInputTokens: promptTokens - cachedTokens,
      cacheReadTokens,
      cacheWriteTokens,
      cacheWrite5mTokens: null,
      cacheWrite1hTokens: null,
      outputTokens: output.value ?? 0,
      reasoningTokens: reasoning.value ?? null,
    },
    problem: problems.length > 0 ? problems.join('; ') : null,
  };
}
