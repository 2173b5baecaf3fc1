/**
 * Measured usage as logs record it → `MeasuredUsage` (pricing.md §1, engine.md §10). FreeCode's
 * `inputTokens` is inclusive (uncached + cache read + cache write), so the uncached part is the
 * difference, never `inputTokens` itself, and writes are never added on top.
 */
import type { MeasuredUsage } from '../session/model.js';

/** Token fields as read from a log line; each may be absent or, in a bad line, not a count at all. */
export type RawUsage = {
  readonly inputTokens?: unknown;
  readonly outputTokens?: unknown;
  readonly cacheReadTokens?: unknown;
  readonly cacheWriteTokens?: unknown;
  readonly reasoningTokens?: unknown;
};

/** The normalized usage (null when the line reports none) and what had to be repaired, if anything. */
export type UsageReading = { readonly usage: MeasuredUsage | null; readonly problem: string | null };

type Count = { readonly value: number | undefined; readonly problem: string | null };

function readCount(name: string, value: unknown): Count {
  if (value === undefined || value === null) return { value: undefined, problem: null };
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return { value, problem: null };
  return { value: undefined, problem: `${name} is not a token count (${JSON.stringify(value)})` };
}

/**
 * Normalizes inclusive usage so that `promptTokens = uncached + read + write`. Repairs, each
 * reported as the `problem`: a token field that is not a non-negative integer is treated as
 * absent; a missing `inputTokens` (with other counts present) is taken as read + write; when
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
  const problems = [input, output, read, write, reasoning].flatMap((count) => (count.problem === null ? [] : [count.problem]));

  if (input.value === undefined && output.value === undefined && read.value === undefined && write.value === undefined) {
    return { usage: null, problem: problems.length > 0 ? problems.join('; ') : null };
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
