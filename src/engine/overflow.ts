/** Context-overflow detection (`agent/recovery/manager.ts`, engine.md §5.5). */

/** Lower-case substrings of the error message that mean "the prompt does not fit" (§5.5). */
export const CONTEXT_OVERFLOW_PATTERNS = Object.freeze([
  'context window exceeds',
  'context length',
  'context_length_exceeded',
  'prompt is too long',
  'prompt_too_long',
  'input token count',
  'too many total tokens',
] as const);

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && name in value ? Reflect.get(value, name) : undefined;
}

/** The AI SDK retry wrapper's real error: `lastError`, else the last of `errors[]`, recursively. */
function unwrapProviderError(error: unknown): unknown {
  const lastError = field(error, 'lastError');
  if (lastError) return unwrapProviderError(lastError);
  const errors = field(error, 'errors');
  if (Array.isArray(errors) && errors.length > 0) return unwrapProviderError(errors.at(-1));
  return error;
}

/** `String(error.message ?? error)`, as FreeCode reads a message. */
function messageOf(error: unknown): string {
  const message = field(error, 'message');
  return String(message ?? error ?? '');
}

/**
 * The HTTP status of a (possibly wrapped) provider error: numeric `statusCode` or `status` of the
 * unwrapped error, else a status parsed from its message ("API error 429", "status code: 413").
 * The spec paraphrases the message pattern; this follows FreeCode's case-insensitive form.
 */
export function getErrorStatus(error: unknown): number | undefined {
  const unwrapped = unwrapProviderError(error);
  const statusCode = field(unwrapped, 'statusCode');
  if (typeof statusCode === 'number') return statusCode;
  const status = field(unwrapped, 'status');
  if (typeof status === 'number') return status;
  const match = /(?:API error|status(?:\s+code)?)[:\s]+(\d{3})/i.exec(messageOf(unwrapped));
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * Whether a provider rejected the request because it does not fit (§5.5): false for null or
 * undefined and for any status other than 400/413; otherwise the lower-cased message of the error
 * as passed in (not the unwrapped one) must contain one of the patterns.
 */
export function isContextOverflowError(error: unknown): boolean {
  if (error === null || error === undefined) return false;
  const status = getErrorStatus(error);
  if (status !== undefined && status !== 400 && status !== 413) return false;
  const message = messageOf(error).toLowerCase();
  return CONTEXT_OVERFLOW_PATTERNS.some((pattern) => message.includes(pattern));
}
