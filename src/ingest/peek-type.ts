/**
 * Cheap look at a JSONL line before paying for `JSON.parse`: writers that put a discriminating
 * key first (FreeCode's rollout writes `type` first, engine.md §6.1) let an adapter skip lines
 * it will ignore anyway.
 */

/**
 * The string value of `key` when the line starts exactly with `{"<key>":"<value>"` and the value
 * has no escapes; null otherwise (the caller then parses the line normally).
 */
export function peekLeadingString(text: string, key: string): string | null {
  const prefix = `{"${key}":"`;
  if (!text.startsWith(prefix)) return null;
  const end = text.indexOf('"', prefix.length);
  if (end === -1) return null;
  const value = text.slice(prefix.length, end);
  return value.includes('\\') ? null : value;
}

/**
 * True when a line that starts with a skippable `{"<key>":…` is also whole and single: it ends
 * with `}` and holds no second `{"<key>":"` (two events merged after a truncated append must be
 * parsed, and fail, rather than be skipped). What a skip can still hide is bad JSON in the middle
 * of a line whose event is ignored anyway: a truncation or a merge, the likely corruptions of an
 * append-only log, are always caught.
 */
export function isSkippableWholeLine(text: string, key: string): boolean {
  return text.trimEnd().endsWith('}') && text.indexOf(`{"${key}":"`, 1) === -1;
}
