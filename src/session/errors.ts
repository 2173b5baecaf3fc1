/**
 * Operational failures (a missing path, an unreadable database, a bad option value): one error
 * class with a code; only `cli/` maps it to an exit code and a one-line message (STYLE.md habit 5).
 */
export type CachecostErrorCode =
  'PATH_NOT_FOUND' | 'BAD_ARGUMENT' | 'STRICT_INGEST' | 'BAD_PRICING_FILE' | 'IO_ERROR' | 'DATABASE_ERROR';

export class CachecostError extends Error {
  readonly code: CachecostErrorCode;

  constructor(code: CachecostErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CachecostError';
    this.code = code;
  }
}

/** Exit code for an operational failure: 2 for `--strict` ingest issues, 1 for the rest. */
export function exitCodeFor(code: CachecostErrorCode): number {
  switch (code) {
    case 'STRICT_INGEST':
      return 2;
    case 'PATH_NOT_FOUND':
    case 'BAD_ARGUMENT':
    case 'BAD_PRICING_FILE':
    case 'IO_ERROR':
    case 'DATABASE_ERROR':
      return 1;
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}

/** The message of anything thrown (an `Error`'s message, else its string form), for one-line errors and ingest issues. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error as it crosses a worker thread's boundary (structured-clone data); `code` set for a `CachecostError`. */
export type WorkerFailure = { readonly message: string; readonly code: string | null; readonly stack: string | null };

const ERROR_CODES: ReadonlySet<string> = new Set<CachecostErrorCode>([
  'PATH_NOT_FOUND',
  'BAD_ARGUMENT',
  'STRICT_INGEST',
  'BAD_PRICING_FILE',
  'IO_ERROR',
  'DATABASE_ERROR',
]);

function isErrorCode(code: string): code is CachecostErrorCode {
  return ERROR_CODES.has(code);
}

/** What a worker thread posts of an error it caught (`revivedError` makes it an error again). */
export function workerFailure(error: unknown): WorkerFailure {
  return {
    message: errorMessage(error),
    code: error instanceof CachecostError ? error.code : null,
    stack: error instanceof Error ? (error.stack ?? null) : null,
  };
}

/** A worker's failure back as the error it was: operational failures keep their code (and so their one-line message). */
export function revivedError(failure: WorkerFailure): Error {
  if (failure.code !== null && isErrorCode(failure.code)) return new CachecostError(failure.code, failure.message);
  const error = new Error(failure.message);
  if (failure.stack !== null) error.stack = failure.stack;
  return error;
}
