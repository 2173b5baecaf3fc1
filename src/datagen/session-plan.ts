/**
 * What a generated session is: the model and provider it ran on, the FreeCode generation that
 * wrote it, the policies its recorded usage reflects, and the shape of every user message's run.
 * The simulator turns a plan into files; the scenarios (and the benchmark corpus) are plans.
 */
import type { CacheRules } from './cache-sim.js';
import type { RepoSpec } from './repo.js';

export interface ModelProfile {
  readonly model: string;
  readonly provider: string;
  readonly windowTokens: number;
  readonly maxOutputTokens: number;
  readonly cache: CacheRules;
  /** Anthropic-style usage reports cache writes; OpenAI-style and DeepSeek report none (the field is absent). */
  readonly reportsCacheWrites: boolean;
  readonly callIdStyle: 'anthropic' | 'openai';
  /** Streaming speed range, output tokens per second. */
  readonly outputTokensPerSecond: readonly [number, number];
  /** Hidden reasoning tokens are part of `outputTokens` (gpt-5). */
  readonly reasoning: boolean;
  /** The provider's context-overflow error for a prompt of `promptTokens` (engine.md §5.5 substrings). */
  readonly overflowError: (promptTokens: number) => string;
}

/**
 * Rollout/store generation (engine.md §6.3, §6.4, §7.5, §11): `aug` = 16 event types,
 * `turn.started` after the response, no `callId`/`failed`/`hook.triggered`/`checkpoint.*`/
 * `memory.exposure`; `newest` = all of them, `turn.started` before the call.
 */
export type Era = 'aug' | 'newest';

/** How `usage` appears in `messages.jsonl` (§7.5): absent (before 2026-08-05), the old `cacheCreationInputTokens` name, or `cacheWriteInputTokens`. */
export type StoreUsageStyle = 'none' | 'creation' | 'write';

export type ResponseKind = 'text' | 'text+tool' | 'tool';

export type PasteKind = 'none' | 'log' | 'trace' | 'test-output';

export interface RunPlan {
  /** Idle time from the previous store message to this user message. */
  readonly idleBeforeMs: number;
  readonly paste: PasteKind;
  readonly pasteChars: number;
  /** A scenario-specific prompt (the paste is appended); otherwise one is composed for the task. */
  readonly prompt?: string;
  /** The provider responses of this run, in order (the last one is normally `text`). */
  readonly responses: readonly ResponseKind[];
  /** Overflow scenario: the response (index in `responses`) whose tool call prints a huge log. */
  readonly hugeResult?: { readonly atResponse: number; readonly chars: number };
  /** Overflow scenario: a steer the user types, drained before the n-th attempt of a failing iteration (1-based). */
  readonly steer?: { readonly beforeAttempt: number; readonly text: string };
  /** Whether this run may issue parallel tool calls (newest generation only). */
  readonly parallelCalls: boolean;
}

/** How big the session's content is: a target for the last request's prompt, or a mean per response. */
export type GrowthPlan =
  | { readonly kind: 'final-prompt'; readonly tokens: number }
  | { readonly kind: 'per-response'; readonly tokens: number };

export type PreCompactHook = { readonly kind: 'allow' } | { readonly kind: 'block'; readonly reason: string };

export interface SessionPlan {
  /** Scenario name (goes into the title and the README). */
  readonly name: string;
  readonly title: string;
  readonly seed: number;
  /** Hex digits the session id starts with ('' for a fully random id). */
  readonly sessionIdPrefix: string;
  readonly startMs: number;
  readonly era: Era;
  readonly storeUsage: StoreUsageStyle;
  readonly model: ModelProfile;
  /** Characters per token ×100 (e.g. 380 = 3.8). */
  readonly cptHundredths: number;
  /** Tokens of the static system+tools+dynamic-context block (segment 0). */
  readonly staticTokens: number;
  readonly toolCount: number;
  readonly project: RepoSpec;
  /** RC4 sliding 1,000-char truncation and RC3 time-based microcompact (pre-2026-08-05 FreeCode). */
  readonly legacy: { readonly slidingTruncation: boolean; readonly microcompact: boolean };
  /** `target`: min(usable window, 120,000) − 13,000 (§1.2); `window-only`: usable window − 13,000 (before the cost target). */
  readonly compactionTrigger: 'target' | 'window-only';
  readonly preCompactHook: PreCompactHook;
  readonly growth: GrowthPlan;
  readonly runs: readonly RunPlan[];
}
