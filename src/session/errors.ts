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
