/**
 * FreeCode's heuristic summarizer (engine.md §3.2) and the newest tool transcript (§3.5), as the
 * generator needs them to write `memory.json` summaries and the memory transcript. The generated
 * sessions use the heuristic summarizer (assumption: auxiliary LLM calls were not allowed), so no
 * unlogged summarizer request is missing from the files.
 */
import type { MemoryMessage } from './selector.js';

/** `clip` of summarizer.ts: unchanged up to `n`, else the first `n` characters + `...`. */
function clip(text: string, n: number): string {
  return text.length <= n ? text : `${text.slice(0, n)}...`;
}

const FILE_PATTERN = /(?:apps|packages|docs)\/[^\s)`'"]+/g;
const BLOCKED_PATTERN = /\b(?:blocked|waiting|error|errors|failed|failing)\b/;
const NEGATION_PATTERN = /\b(?:no|without|zero|resolved|fixed)\s+(?:errors?|blockers?|issues?)\b/;
const TOOL_PATTERN = /Tool (\w+):/g;

function pushUnique(list: string[], line: string): void {
  if (!list.includes(line)) list.push(line);
}

/** §3.2: the heuristic summary's content. */
export function summarizeMessages(messages: readonly MemoryMessage[], previousSummary: string | undefined): string {
  const files: string[] = [];
  const done: string[] = [];
  const inProgress: string[] = [];
  const blocked: string[] = [];
  const tools: string[] = [];
  for (const message of messages) {
    for (const match of message.content.matchAll(FILE_PATTERN)) if (!files.includes(match[0])) files.push(match[0]);
    for (const match of message.content.matchAll(TOOL_PATTERN))
      if (match[1] !== undefined && !tools.includes(match[1])) tools.push(match[1]);
    const lower = message.content.toLowerCase();
    const line = clip(message.content, 120);
    if (BLOCKED_PATTERN.test(lower) && !NEGATION_PATTERN.test(lower)) pushUnique(blocked, line);
    else if (lower.includes('working on') || lower.includes('in progress') || lower.includes('currently'))
      pushUnique(inProgress, line);
    else if (lower.includes('completed') || lower.includes('done') || lower.includes('finished'))
      pushUnique(done, line);
  }
  const bullets = (items: readonly string[], cap: number): string[] =>
    items.length === 0 ? ['- (none)'] : items.slice(0, cap).map((item) => `- ${item}`);
  const firstUser = messages.find((m) => m.role === 'user');
  const assistants = messages.filter((m) => m.role === 'assistant');
  const sections: string[][] = [];
  sections.push([
    '## Goal',
    firstUser === undefined ? '- Continue the current coding session.' : `- ${clip(firstUser.content, 240)}`,
  ]);
  if (previousSummary !== undefined) sections.push(['## Previous Summary', clip(previousSummary, 1500)]);
  sections.push(['## Done', ...bullets(done, 5)]);
  sections.push(['## In Progress', ...bullets(inProgress, 3)]);
  sections.push(['## Blocked', ...bullets(blocked, 3)]);
  sections.push([
    '## Decisions',
    ...(tools.length === 0
      ? ['- (none)']
      : [`- Tools used: ${tools.join(', ')}`, '- (see Recent Progress for details)']),
  ]);
  sections.push([
    '## Recent Progress',
    ...(assistants.length === 0 ? ['- (none)'] : assistants.slice(-3).map((m) => `- ${clip(m.content, 200)}`)),
  ]);
  sections.push([
    '## Relevant Files',
    ...(files.length === 0 ? ['- (none)'] : files.slice(0, 15).map((f) => `- ${f}`)),
  ]);
  const next = [`- This summary replaces ${messages.length} older messages that were compacted away`];
  if (assistants.length > 0) next.push('- Continue from where the session left off');
  sections.push(['## Next Steps', ...next]);
  return sections.map((lines) => lines.join('\n')).join('\n\n');
}

export interface ToolActivity {
  readonly tool: string;
  readonly args: unknown;
  readonly output: string;
  readonly error: string | undefined;
}

/** tool-transcript.ts `clip`: collapse whitespace, trim, cut to the limit + `…`. */
function transcriptClip(text: string, limit: number): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  return collapsed.length <= limit ? collapsed : `${collapsed.slice(0, limit)}…`;
}

/** §3.5: one line per call, oldest dropped beyond `maxChars`. */
export function renderToolTranscript(activity: readonly ToolActivity[], maxChars: number): string {
  const lines = activity.map((a) => {
    const args = a.args === undefined || a.args === null ? '' : transcriptClip(JSON.stringify(a.args), 200);
    const head = args === '' ? `Tool ${a.tool}:` : `Tool ${a.tool}: ${args}`;
    if (a.error !== undefined) return `${head} -> failed: ${transcriptClip(a.error, 200)}`;
    if (a.output === '') return `${head} -> ok`;
    return `${head} -> ${transcriptClip(a.output, 200)}`;
  });
  let total = lines.reduce((n, l) => n + l.length + 1, 0);
  let dropped = 0;
  while (total > maxChars && lines.length > 1) {
    const removed = lines.shift() ?? '';
    total -= removed.length + 1;
    dropped++;
  }
  if (dropped > 0) lines.unshift(`[${dropped} earlier tool calls omitted]`);
  return lines.join('\n');
}

/** §3.5 `renderTurnForMemory`. */
export function renderTurnForMemory(text: string, activity: readonly ToolActivity[], maxChars: number): string {
  const transcript = renderToolTranscript(activity, maxChars);
  if (text === '') return transcript;
  if (transcript === '') return text;
  return `${text}\n${transcript}`;
}
