/**
 * The models the datasets ran on, with the facts the generator needs: window and output limit
 * (engine.md §1.4), the provider's cache style (the shared cache rules; pricing.md §1), whether
 * usage reports cache writes (§10), streaming speed, and the overflow error text (§5.5).
 */
import type { ModelProfile } from './session-plan.js';

const FIVE_MINUTES_MS = 300_000;
const ONE_HOUR_MS = 3_600_000;

/** MiniMax-M3 on its Anthropic-compatible endpoint: breakpoint caching, 512-token minimum. */
export const MINIMAX_M3: ModelProfile = {
  model: 'MiniMax-M3',
  provider: 'minimax',
  windowTokens: 1_000_000,
  maxOutputTokens: 131_072,
  cache: { kind: 'anthropic', minTokens: 512, ttlMs: FIVE_MINUTES_MS },
  reportsCacheWrites: true,
  callIdStyle: 'anthropic',
  outputTokensPerSecond: [45, 95],
  reasoning: false,
  overflowError: () => 'invalid params, context window exceeds limit (2013)',
};

/** GPT-5 (OpenAI < 5.6): automatic prefix caching, 1,024 minimum, 128-token steps, free writes. */
export const GPT_5: ModelProfile = {
  model: 'gpt-5',
  provider: 'openai',
  windowTokens: 400_000,
  maxOutputTokens: 128_000,
  cache: { kind: 'automatic', minTokens: 1_024, granularityTokens: 128, ttlMs: FIVE_MINUTES_MS },
  reportsCacheWrites: false,
  callIdStyle: 'openai',
  outputTokensPerSecond: [35, 80],
  reasoning: true,
  overflowError: (promptTokens) =>
    `This model's maximum context length is 400000 tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages. (context_length_exceeded)`,
};

/** DeepSeek chat: automatic disk cache, 64-token units, 1 h; misses billed as input. */
export const DEEPSEEK_CHAT: ModelProfile = {
  model: 'deepseek-chat',
  provider: 'deepseek',
  windowTokens: 128_000,
  maxOutputTokens: 8_000,
  cache: { kind: 'automatic', minTokens: 64, granularityTokens: 64, ttlMs: ONE_HOUR_MS },
  reportsCacheWrites: false,
  callIdStyle: 'openai',
  outputTokensPerSecond: [25, 55],
  reasoning: false,
  overflowError: (promptTokens) =>
    `This model's maximum context length is 131072 tokens. However, you requested ${promptTokens + 8_000} tokens (${promptTokens} in the messages, 8000 in the completion). Please reduce the length of the messages or completion.`,
};

/** Claude Sonnet 4.5: breakpoint caching, 1,024-token minimum, 5-minute TTL. */
export const CLAUDE_SONNET_4_5: ModelProfile = {
  model: 'claude-sonnet-4-5',
  provider: 'anthropic',
  windowTokens: 200_000,
  maxOutputTokens: 64_000,
  cache: { kind: 'anthropic', minTokens: 1_024, ttlMs: FIVE_MINUTES_MS },
  reportsCacheWrites: true,
  callIdStyle: 'anthropic',
  outputTokensPerSecond: [50, 95],
  reasoning: false,
  overflowError: (promptTokens) => `prompt is too long: ${promptTokens} tokens > 200000 maximum`,
};
