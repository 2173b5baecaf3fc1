/**
 * The LLM summarizer's request and outcome (engine.md §3.3). The engine only builds the request;
 * the caller runs it (synchronously for the replay, or through the async adapter below).
 */
import { errorMessage } from '../session/errors.js';
import type { SummarizeInput } from './summarizer.js';

/** Max output tokens of a summarizer call (§3.3). */
export const LLM_SUMMARY_MAX_TOKENS = 1_024;

/** The seven sections the LLM summary must have, in order (§3.3). */
export const LLM_SUMMARY_SECTIONS = Object.freeze([
  '## Goal',
  '## Done',
  '## In Progress',
  '## Blocked',
  '## Decisions',
  '## Relevant Files',
  '## Next Steps',
] as const);

/** The system prompt, written from §3.3's paraphrase (its rules and its seven headers in order). */
export const LLM_SUMMARY_SYSTEM_PROMPT = [
  'You compress a coding-assistant session into a concise hand-off summary, so that the work can continue after the older messages are dropped.',
  '',
  'Write GitHub-flavoured markdown with exactly these section headers, in this order:',
  ...LLM_SUMMARY_SECTIONS,
  '',
  'Rules:',
  '- Be factual and terse. Never invent progress that is not in the transcript.',
  '- Keep exact file paths, identifiers, commands and unresolved errors.',
  '- Under "Blocked", list only real blockers that are still open.',
  '- Write an empty section as "- (none)".',
].join('\n');

export interface LlmSummaryRequest {
  readonly system: string;
  readonly prompt: string;
  /** `prompt.length`, known without building the prompt (a modelled call reads only its size). */
  readonly promptChars: number;
  /** Undefined asks the provider's default model, as FreeCode does without a model. */
  readonly model: string | undefined;
  readonly temperature: 0;
  readonly maxTokens: number;
}

export type LlmSummaryOutcome =
  { readonly ok: true; readonly content: string } | { readonly ok: false; readonly error: string };

/** A caller-supplied synchronous summarizer (the replay models the call; no Promise in the hot path). */
export type LlmSummarize = (request: LlmSummaryRequest) => LlmSummaryOutcome;

/** The model a summary is requested from (undefined = provider default), and the function that answers. */
export interface LlmSummarizer {
  readonly model: string | undefined;
  readonly summarize: LlmSummarize;
}

const PREVIOUS_SUMMARY_HEAD = "Previous summary (carry forward and update, don't repeat verbatim):\n\n";
const TRANSCRIPT_HEAD = 'Session transcript to summarize:\n\n';
const PART_SEPARATOR = '\n\n---\n\n';
const MESSAGE_SEPARATOR = '\n\n';

/**
 * The request FreeCode sends (§3.3): the previous summary in full when there is one, then the
 * transcript as `<role>: <content>` paragraphs; parts joined by `\n\n---\n\n`; temperature 0.
 * The prompt is built when first read (a transcript can be hundreds of KB); `promptChars` is its
 * length, counted from the parts.
 */
export function buildLlmSummaryRequest(input: SummarizeInput, model: string | undefined): LlmSummaryRequest {
  let prompt: string | undefined;
  return {
    system: LLM_SUMMARY_SYSTEM_PROMPT,
    get prompt(): string {
      prompt ??= llmSummaryPrompt(input);
      return prompt;
    },
    promptChars: llmSummaryPromptChars(input),
    model,
    temperature: 0,
    maxTokens: LLM_SUMMARY_MAX_TOKENS,
  };
}

function llmSummaryPrompt(input: SummarizeInput): string {
  const parts: string[] = [];
  if (input.previousSummary) parts.push(`${PREVIOUS_SUMMARY_HEAD}${input.previousSummary}`);
  const transcript = input.messages.map((message) => `${message.role}: ${message.content}`).join(MESSAGE_SEPARATOR);
  parts.push(`${TRANSCRIPT_HEAD}${transcript}`);
  return parts.join(PART_SEPARATOR);
}

/** `llmSummaryPrompt(input).length`, from the lengths of its parts. */
function llmSummaryPromptChars(input: SummarizeInput): number {
  let chars = TRANSCRIPT_HEAD.length;
  if (input.previousSummary)
    chars += PREVIOUS_SUMMARY_HEAD.length + input.previousSummary.length + PART_SEPARATOR.length;
  const messages = input.messages;
  for (const message of messages) chars += message.role.length + 2 + message.content.length;
  if (messages.length > 1) chars += (messages.length - 1) * MESSAGE_SEPARATOR.length;
  return chars;
}

/** FreeCode's acceptance of a reply (§3.3): trimmed; empty is a failure with its message. */
export function acceptLlmSummary(outcome: LlmSummaryOutcome): LlmSummaryOutcome {
  if (!outcome.ok) return outcome;
  const content = outcome.content.trim();
  return content === '' ? { ok: false, error: 'provider returned an empty summary' } : { ok: true, content };
}

/** The provider interface of the async adapter: FreeCode's non-streaming `provider.execute`. */
export interface SummaryProvider {
  execute(request: LlmSummaryRequest): Promise<{ readonly content?: string | undefined }>;
}

/** Async adapter for live use: runs the request on a provider; a throw becomes a failed outcome. */
export async function executeLlmSummary(
  provider: SummaryProvider,
  request: LlmSummaryRequest,
): Promise<LlmSummaryOutcome> {
  try {
    const result = await provider.execute(request);
    return acceptLlmSummary({ ok: true, content: result.content ?? '' });
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}
