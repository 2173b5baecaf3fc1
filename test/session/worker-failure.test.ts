import { describe, expect, it } from 'vitest';
import { CachecostError, revivedError, workerFailure } from '../../src/session/errors.js';

/** What crosses a worker thread's boundary: structured-clone data, as `postMessage` sends it. */
function across(error: unknown): Error {
  return revivedError(structuredClone(workerFailure(error)));
}

describe('an error crossing a worker thread', () => {
  it('an operational failure comes back as a CachecostError with its code and message', () => {
    const back = across(new CachecostError('PATH_NOT_FOUND', 'no such path: logs/'));
    expect(back).toBeInstanceOf(CachecostError);
    expect((back as CachecostError).code).toBe('PATH_NOT_FOUND');
    expect(back.message).toBe('no such path: logs/');
  });

  it('any other error comes back as a plain Error with its message and stack (a bug, reported as one)', () => {
    const original = new TypeError('x is undefined');
    const back = across(original);
    expect(back).not.toBeInstanceOf(CachecostError);
    expect(back.message).toBe('x is undefined');
    expect(back.stack).toBe(original.stack);
  });

  it('a thrown non-error keeps its text, and an unknown code is not trusted as an operational one', () => {
    expect(across('plain string').message).toBe('plain string');
    const forged = revivedError({ message: 'm', code: 'NOT_A_CODE', stack: null });
    expect(forged).not.toBeInstanceOf(CachecostError);
    expect(forged.message).toBe('m');
  });
});
