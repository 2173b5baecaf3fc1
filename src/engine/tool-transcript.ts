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
   * when `args` is absent or null (the line shows no arguments then); undefined reads as absent.
   */
  readonly argsJson?: string | undefined;
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
  // Outputs can be hundreds of KB; only the head can survive the clip. One scan builds the
  // collapsed, trimmed text until it would reach `maxChars + 1` characters (a run between words
  // is one space; a run at the end is trimmed), and cuts there, as FreeCode cuts the whole. The
  // text is copied only where a run is not already a single space: an argument line in compact
  // JSON is returned as it is, or sliced once.
  const length = text.length;
  let i = 0;
  while (i < length && isWhiteSpace(text.charCodeAt(i))) i += 1;
  /** The collapsed text before `from`; `text[from, i)` follows it unchanged. */
  let out = '';
  let from = i;
  let chars = 0;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (!isWhiteSpace(code)) {
      if (chars === maxChars) return `${out}${text.slice(from, i)}\u2026`;
      chars += 1;
      i += 1;
      continue;
    }
    let next = i + 1;
    while (next < length && isWhiteSpace(text.charCodeAt(next))) next += 1;
    if (next === length) break;
    if (chars === maxChars) return `${out}${text.slice(from, i)}\u2026`;
    chars += 1;
    if (code === 0x20 && next === i + 1) {
      i = next;
      continue;
    }
    out = `${out}${text.slice(from, i)} `;
    from = next;
    i = next;
  }
  return from === 0 && i === length ? text : `${out}${text.slice(from, i)}`;
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

/**
 * Memory entries of tool-calling responses by their first activity entry, for a caller that hands
 * the same (immutable) entries over again (one session replayed under several scenarios): an
 * entry is a function of the response's text, its entries and the budget, each checked before a
 * kept one is used. Besides the work, the same response gets the same string, whose hash a map of
 * contents keyed by it (`SummaryMemo`) then reads back instead of computing it again.
 */
export type TurnMemo = WeakMap<
  ToolActivity,
  {
    readonly text: string;
    readonly activity: readonly ToolActivity[];
    readonly maxChars: number;
    readonly content: string;
  }
>;

/**
 * `renderTurnForMemory` through `turns` (the same string as before for the same text, entries and
 * budget); without `turns`, `renderTurnForMemory` itself.
 */
export function memoizedTurnForMemory(
  turns: TurnMemo | undefined,
  assistantText: string,
  activity: readonly ToolActivity[],
  maxChars: number,
  lines?: ToolLineMemo,
): string {
  const first = activity[0];
  if (turns === undefined || first === undefined) return renderTurnForMemory(assistantText, activity, maxChars, lines);
  const known = turns.get(first);
  if (
    known !== undefined &&
    known.maxChars === maxChars &&
    known.text === assistantText &&
    known.activity.length === activity.length &&
    known.activity.every((entry, i) => entry === activity[i])
  )
    return known.content;
  const content = renderTurnForMemory(assistantText, activity, maxChars, lines);
  turns.set(first, { text: assistantText, activity: activity.slice(), maxChars, content });
  return content;
}
