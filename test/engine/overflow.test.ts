import { describe, expect, it } from 'vitest';
import { getErrorStatus, isContextOverflowError } from '../../src/engine/index.js';

class ApiError extends Error {
  constructor(
    message: string,
    readonly statusCode?: number,
  ) {
    super(message);
  }
}

describe('context-overflow detection (engine.md §5.5)', () => {
  it('recognises each provider wording', () => {
    for (const message of [
      'invalid params, context window exceeds limit (2013)',
      'prompt is too long: 210000 tokens > 200000 maximum',
      "This model's maximum context length is 128000 tokens",
      'context_length_exceeded',
      'The input token count (1200000) exceeds the maximum number of tokens allowed',
      'error: prompt_too_long',
      'Too many total tokens in request',
    ]) {
      expect(isContextOverflowError(new Error(message))).toBe(true);
    }
    expect(isContextOverflowError('context length')).toBe(true);
  });

  it('rejects null, undefined, unrelated messages and non-400/413 statuses', () => {
    expect(isContextOverflowError(null)).toBe(false);
    expect(isContextOverflowError(undefined)).toBe(false);
    expect(isContextOverflowError(new Error('rate limited'))).toBe(false);
    expect(isContextOverflowError(new ApiError('prompt is too long', 500))).toBe(false);
    expect(isContextOverflowError(new ApiError('prompt is too long', 429))).toBe(false);
    expect(isContextOverflowError(new ApiError('prompt is too long', 400))).toBe(true);
    expect(isContextOverflowError(new ApiError('prompt is too long', 413))).toBe(true);
    expect(isContextOverflowError({ status: 413, message: 'Context Length exceeded' })).toBe(true);
    expect(isContextOverflowError(new Error('MiniMax API error 500: context window exceeds limit'))).toBe(false);
  });

  it('unwraps retry wrappers for the status but reads the message of the error as passed in', () => {
    const inner = new ApiError('prompt is too long: 1 > 0', 400);
    expect(
      isContextOverflowError({ lastError: inner, message: 'Failed after 3 attempts. Last error: prompt is too long' }),
    ).toBe(true);
    // The wrapper's own message decides, even though the inner error is an overflow.
    expect(isContextOverflowError({ lastError: inner, message: 'Failed after 3 attempts' })).toBe(false);
    // A 500 inside the wrapper vetoes an overflow-looking wrapper message.
    expect(isContextOverflowError({ errors: [inner, new ApiError('x', 500)], message: 'context length' })).toBe(false);
  });

  it('reads the status from numeric fields, then from the message', () => {
    expect(getErrorStatus(new ApiError('x', 413))).toBe(413);
    expect(getErrorStatus({ status: 400 })).toBe(400);
    expect(getErrorStatus(new Error('MiniMax API error 429: slow down'))).toBe(429);
    expect(getErrorStatus(new Error('failed with status code 413'))).toBe(413);
    expect(getErrorStatus(new Error('Status: 400 bad request'))).toBe(400);
    expect(getErrorStatus({ errors: [{ statusCode: 503 }] })).toBe(503);
    expect(getErrorStatus(new Error('no status here'))).toBeUndefined();
    expect(getErrorStatus('status 502')).toBe(502);
  });
});
