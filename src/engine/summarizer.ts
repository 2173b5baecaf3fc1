/**
 * The heuristic summarizer and the summary wrapper (engine.md §3.1, §3.2). Time comes from the
 * caller: a summary's id and `createdAt` use the `createdAtMs` argument.
 */
import type { CompactionSummary } from './memory-state.js';
import { estimateTokenCount } from './tokens.js';
import type { WorkStatus } from './work-status.js';
import { classifyWorkStatus } from './work-status.js';

/** What the summarizers read of a memory message. */
export interface SummarizableMessage {
  readonly role: string;
  readonly content: string;
  readonly tokenCount: number;
}

export interface SummarizeInput {
  readonly sessionId: string;
  /** The latest summary's content, chained into the next one (§3.4). */
  readonly previousSummary?: string | undefined;
  readonly messages: readonly SummarizableMessage[];
}

/** Caps of the rendered sections (§3.2). */
export const HEURISTIC_SUMMARY_LIMITS = Object.freeze({
  goalChars: 240,
  previousSummaryChars: 1_500,
  statusLineChars: 120,
  recentProgressChars: 200,
  recentProgressMessages: 3,
  doneLines: 5,
  inProgressLines: 3,
  blockedLines: 3,
  files: 15,
});

/** Only these three roots are ever found (§3.2); the pattern has no leading word boundary. */
const FILE_PATH = /(?:apps|packages|docs)\/[^\s)`'"]+/g;
const TOOL_NAME = /Tool (\w+):/g;

/** The summarizer's clip: unchanged up to `maxChars`, else the first `maxChars` + "...". */
function clip(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}...`;
}

/** What the heuristic summary reads of one message's content: its status bucket, its tool names and file paths (each once, in first-match order). */
export type ContentAnalysis = {
  readonly status: WorkStatus | null;
  readonly tools: readonly string[];
  readonly files: readonly string[];
};

/**
 * Analyses by content, for a caller that summarizes the same contents again (a sweep replays one
 * session under many scenarios, each compacting the same messages at its own points):
 * `analyzeContent` is a function of the content alone, so the memo only saves work.
 */
export type SummaryMemo = Map<string, ContentAnalysis>;

const NO_MATCHES: readonly string[] = Object.freeze([]);

function uniqueMatchesOf(content: string, pattern: RegExp, group: 0 | 1): readonly string[] {
  let found: Set<string> | null = null;
  for (const match of content.matchAll(pattern)) {
    const value = match[group];
    if (value !== undefined) (found ??= new Set()).add(value);
  }
  return found === null ? NO_MATCHES : [...found];
}

/** The summary's reading of one content (`ContentAnalysis`). */
function analyzeContent(content: string): ContentAnalysis {
  return {
    status: classifyWorkStatus(content),
    tools: uniqueMatchesOf(content, TOOL_NAME, 1),
    files: uniqueMatchesOf(content, FILE_PATH, 0),
  };
}

function analysisOf(content: string, memo: SummaryMemo | undefined): ContentAnalysis {
  if (memo === undefined) return analyzeContent(content);
  let analysis = memo.get(content);
  if (analysis === undefined) {
    analysis = analyzeContent(content);
    memo.set(content, analysis);
  }
  return analysis;
}

function bulletsOrNone(items: readonly string[]): string[] {
  return items.length > 0 ? items.map((item) => `- ${item}`) : ['- (none)'];
}

/** The heuristic summary's markdown (§3.2 layout), deterministic in its input. */
export function heuristicSummaryContent(input: SummarizeInput, memo?: SummaryMemo): string {
  const limits = HEURISTIC_SUMMARY_LIMITS;
  const users = input.messages.filter((message) => message.role === 'user');
  const assistants = input.messages.filter((message) => message.role === 'assistant');

  const done: string[] = [];
  const inProgress: string[] = [];
  const blocked: string[] = [];
  // The tool names and file paths of all the messages in first-match order: each message's own, in turn.
  const toolSet = new Set<string>();
  const fileSet = new Set<string>();
  for (const message of input.messages) {
    const analysis = analysisOf(message.content, memo);
    for (const tool of analysis.tools) toolSet.add(tool);
    for (const file of analysis.files) fileSet.add(file);
    const status = analysis.status;
    if (status === null) continue;
    const bucket = status === 'blocked' ? blocked : status === 'in-progress' ? inProgress : done;
    const shown =
      status === 'blocked' ? limits.blockedLines : status === 'in-progress' ? limits.inProgressLines : limits.doneLines;
    // Only a bucket's first distinct lines are shown: once it has them, no later line changes it.
    if (bucket.length >= shown) continue;
    const line = clip(message.content, limits.statusLineChars);
    if (!bucket.includes(line)) bucket.push(line);
  }
  const tools = [...toolSet];
  const files = [...fileSet].slice(0, limits.files);

  const sections: string[][] = [];
  sections.push([
    '## Goal',
    `- ${clip(users[0]?.content ?? 'Continue the current coding session.', limits.goalChars)}`,
  ]);
  // Truthiness as FreeCode: an empty previous summary adds no section.
  if (input.previousSummary) {
    sections.push(['## Previous Summary', clip(input.previousSummary, limits.previousSummaryChars)]);
  }
  sections.push(['## Done', ...bulletsOrNone(done.slice(0, limits.doneLines))]);
  sections.push(['## In Progress', ...bulletsOrNone(inProgress.slice(0, limits.inProgressLines))]);
  sections.push(['## Blocked', ...bulletsOrNone(blocked.slice(0, limits.blockedLines))]);
  sections.push([
    '## Decisions',
    ...(tools.length > 0 ? [`- Tools used: ${tools.join(', ')}`, '- (see Recent Progress for details)'] : ['- (none)']),
  ]);
  sections.push([
    '## Recent Progress',
    ...bulletsOrNone(
      assistants
        .slice(-limits.recentProgressMessages)
        .map((message) => clip(message.content, limits.recentProgressChars)),
    ),
  ]);
  sections.push(['## Relevant Files', ...bulletsOrNone(files)]);
  sections.push([
    '## Next Steps',
    `- This summary replaces ${input.messages.length} older messages that were compacted away`,
    ...(assistants.length > 0 ? ['- Continue from where the session left off'] : []),
  ]);
  return sections.map((lines) => lines.join('\n')).join('\n\n');
}

/**
 * Wraps summary content (§3.1): id `summary-<sessionId>-<createdAtMs>`, the count and token sum
 * of the summarized messages, and the content's estimate.
 */
export function makeSummary(input: SummarizeInput, content: string, createdAtMs: number): CompactionSummary {
  return {
    id: `summary-${input.sessionId}-${createdAtMs}`,
    createdAt: createdAtMs,
    originalMessageCount: input.messages.length,
    originalTokenCount: input.messages.reduce((sum, message) => sum + message.tokenCount, 0),
    summaryTokenCount: estimateTokenCount(content),
    content,
  };
}

/** FreeCode's `summarizeMessages`: the heuristic summary, wrapped (§3.2). */
export function summarizeMessages(input: SummarizeInput, createdAtMs: number, memo?: SummaryMemo): CompactionSummary {
  return makeSummary(input, heuristicSummaryContent(input, memo), createdAtMs);
}
