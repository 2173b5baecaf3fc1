/**
 * The tool transcript (engine.md §3.5, newest): how a tool-calling response is written into the
 * memory transcript, one bounded line per call, under a per-turn character budget.
 */

/** Per-call limits, in characters (`TOOL_TRANSCRIPT_LIMITS`). */
export const TOOL_TRANSCRIPT_LIMITS = Object.freeze({ MAX_RESULT_CHARS: 200, MAX_ARGS_CHARS: 200 });

/** One tool call as the loop hands it over: the model-facing output, or the error. */
export interface ToolActivity {
  readonly tool: string;
  readonly args?: unknown;
  /**
   * The arguments already serialized, `JSON.stringify(args)`, for a caller that holds them as JSON
   * text: rendered instead of `args` (the same line), so the parsed value need not be kept. Absent
   * when `args` is absent or null (the line shows no arguments then).
   */
  readonly argsJson?: string;
  readonly output?: string | undefined;
  readonly error?: string | undefined;
}

/**
 * Whether a UTF-16 code unit is white space as `\s` and `String.prototype.trim` see it
 * (ECMAScript WhiteSpace and LineTerminator).
 */
function isWhiteSpace(code: number): boolean {
  if (code <= 0x7f) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** The transcript's clip: whitespace runs collapsed to one space, trimmed, cut with `…` (U+2026). */
function clipLine(text: string, maxChars: number): string {
  // Outputs can be hundreds of KB; only the head can survive the clip. One scan finds where the
  // collapsed, trimmed text would reach `maxChars + 1` characters (each run between words counts
  // one); when it does, that head collapsed is the collapsed text's prefix exactly (it ends on a
  // character that is not white space), so the clip is cut from it, as FreeCode cuts the whole.
  const length = text.length;
  let end = 0;
  while (end < length && isWhiteSpace(text.charCodeAt(end))) end += 1;
  let chars = 0;
  let inRun = false;
  for (; end < length; end++) {
    if (isWhiteSpace(text.charCodeAt(end))) {
      inRun = true;
      continue;
    }
    chars += inRun ? 2 : 1;
    inRun = false;
    if (chars > maxChars) {
      const head = text
        .slice(0, end + 1)
        .replace(/\s+/g, ' ')
        .trimStart();
      return `${head.slice(0, maxChars)}\u2026`;
    }
  }
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= maxChars ? oneLine : `${oneLine.slice(0, maxChars)}\u2026`;
}

function renderArgs(args: unknown): string {
  if (args === undefined || args === null) return '';
  try {
    // JSON.stringify returns undefined for functions and symbols; FreeCode's clip then throws
    // inside the same try, which also yields "".
    const json: string | undefined = JSON.stringify(args);
    return json === undefined ? '' : clipLine(json, TOOL_TRANSCRIPT_LIMITS.MAX_ARGS_CHARS);
  } catch {
    return '';
  }
}

function renderCall(entry: ToolActivity): string {
  const args =
    entry.argsJson === undefined
      ? renderArgs(entry.args)
      : clipLine(entry.argsJson, TOOL_TRANSCRIPT_LIMITS.MAX_ARGS_CHARS);
  const head = args === '' ? `Tool ${entry.tool}:` : `Tool ${entry.tool}: ${args}`;
  // Truthiness on purpose, as FreeCode: an empty error is no error, an empty output is "ok".
  if (entry.error) return `${head} -> failed: ${clipLine(entry.error, TOOL_TRANSCRIPT_LIMITS.MAX_RESULT_CHARS)}`;
  if (!entry.output) return `${head} -> ok`;
  return `${head} -> ${clipLine(entry.output, TOOL_TRANSCRIPT_LIMITS.MAX_RESULT_CHARS)}`;
}

/**
 * Rendered lines by activity entry, for a caller that hands the same (immutable) entries over
 * again, e.g. one session replayed under several scenarios: a line depends on its entry alone.
 */
export type ToolLineMemo = WeakMap<ToolActivity, string>;

function renderCallWith(memo: ToolLineMemo | undefined): (entry: ToolActivity) => string {
  if (memo === undefined) return renderCall;
  return (entry) => {
    let line = memo.get(entry);
    if (line === undefined) {
      line = renderCall(entry);
      memo.set(entry, line);
    }
    return line;
  };
}

/**
 * One line per call; while Σ(line length + 1) exceeds `maxChars` and more than one line is left,
 * the oldest line is dropped, and `[k earlier tool calls omitted]` is prepended when any were
 * (which may exceed the budget slightly, as in FreeCode). `memo` only saves work.
 */
export function renderToolTranscript(activity: readonly ToolActivity[], maxChars: number, memo?: ToolLineMemo): string {
  const lines = activity.map(renderCallWith(memo));
  let totalChars = lines.reduce((sum, line) => sum + line.length + 1, 0);
  let dropped = 0;
  while (totalChars > maxChars && lines.length - dropped > 1) {
    totalChars -= (lines[dropped]?.length ?? 0) + 1;
    dropped += 1;
  }
  const kept = lines.slice(dropped);
  return (dropped > 0 ? [`[${dropped} earlier tool calls omitted]`, ...kept] : kept).join('\n');
}

/** The memory entry of a tool-calling response: text, transcript, or `text + "\n" + transcript`. */
export function renderTurnForMemory(
  assistantText: string,
  activity: readonly ToolActivity[],
  maxChars: number,
  memo?: ToolLineMemo,
): string {
  const transcript = renderToolTranscript(activity, maxChars, memo);
  if (assistantText === '') return transcript;
  if (transcript === '') return assistantText;
  return `${assistantText}\n${transcript}`;
}
