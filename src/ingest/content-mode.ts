/**
 * How much of a log's content ingest keeps. `text`: the content, for commands that read it (the
 * replay's summarizer). `sizes`: character counts only, text null everywhere — the long strings
 * are dropped as each line is parsed, so a command that only counts (`sessions`) holds a 1 GB
 * log's sizes, not its text. `usage`: what the bill and the session summary read — every request
 * and its usage, the events, the user prompts and every ingest issue exactly as in `sizes` — where an
 * adapter may leave item sizes out (0) to skip the content (Claude Code does: its tool results are
 * most of a transcript's bytes), and tool-call arguments (FreeCode's `argsJson` is `''`; Claude
 * Code's calls are not listed), after the same depth check as `jsonText`.
 */
export type ContentMode = 'text' | 'sizes' | 'usage';

/** The content to keep under `mode`: the string itself, or null. */
export function kept(text: string, mode: ContentMode): string | null {
  return mode === 'text' ? text : null;
}
