/**
 * Parsing of FreeCode's numeric environment overrides (engine.md §1.1, §5.6). The caller reads
 * the environment and passes the raw string; an invalid value yields a warning for the caller to
 * show, never a silent fallback.
 */
import { DEFAULT_COMPACT_TARGET_TOKENS } from './tokens.js';
import type { EngineVersion } from './params.js';

export interface ParsedOverride<T> {
  readonly value: T;
  /** Present when the raw value was rejected; say it to the user (FreeCode logs it). */
  readonly warning?: string;
}

function rejected(variableName: string, raw: string, expectation: string): string {
  return `Ignoring ${variableName}="${raw}": expected ${expectation}.`;
}

/**
 * FreeCode's parse of `FREECODE_AUTO_COMPACT_TOKENS` / `FREECODE_MAX_TURN_TOKENS` (§1.1): unset
 * or empty → undefined; `parseInt(raw, 10)` when finite and > 0 (so "150k" reads as 150);
 * otherwise undefined with a warning.
 */
export function parseTokenOverride(
  raw: string | undefined,
  variableName = 'FREECODE_AUTO_COMPACT_TOKENS',
): ParsedOverride<number | undefined> {
  if (raw === undefined || raw === '') return { value: undefined };
  const parsed = Number.parseInt(raw, 10);
  if (!Number.isFinite(parsed) || parsed <= 0) {
    return { value: undefined, warning: rejected(variableName, raw, 'a positive integer') };
  }
  return { value: parsed };
}

/** `getCompactTarget()` (§1.1): the parsed `FREECODE_COMPACT_TARGET_TOKENS`, else 120,000. */
export function resolveCompactTarget(raw: string | undefined): ParsedOverride<number> {
  const parsed = parseTokenOverride(raw, 'FREECODE_COMPACT_TARGET_TOKENS');
  const value = parsed.value ?? DEFAULT_COMPACT_TARGET_TOKENS;
  return parsed.warning === undefined ? { value } : { value, warning: parsed.warning };
}

/**
 * `FREECODE_TOOL_RESULT_BUDGET_CHARS` (§5.6), default 200,000. Newest: `envInt(…, {min: 0})`,
 * read as unset/empty → default, `parseInt` below 0 or not finite → default with a warning (0 is
 * legal). Aug version: `Number(raw)`, so an empty string means 0; a non-numeric value (which
 * FreeCode would turn into NaN) falls back to the default with a warning here.
 */
export function parseToolResultBudgetChars(
  raw: string | undefined,
  version: EngineVersion,
  defaultChars = 200_000,
): ParsedOverride<number> {
  const variableName = 'FREECODE_TOOL_RESULT_BUDGET_CHARS';
  if (raw === undefined) return { value: defaultChars };
  switch (version) {
    case 'newest': {
      if (raw === '') return { value: defaultChars };
      const parsed = Number.parseInt(raw, 10);
      if (!Number.isFinite(parsed) || parsed < 0) {
        return { value: defaultChars, warning: rejected(variableName, raw, 'an integer >= 0') };
      }
      return { value: parsed };
    }
    case 'aug': {
      const parsed = Number(raw);
      if (!Number.isFinite(parsed)) {
        return { value: defaultChars, warning: rejected(variableName, raw, 'a number') };
      }
      return { value: parsed };
    }
    default: {
      const unreachable: never = version;
      return unreachable;
    }
  }
}
