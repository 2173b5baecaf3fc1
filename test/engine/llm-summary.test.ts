import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  LLM_SUMMARY_SECTIONS,
  LLM_SUMMARY_SYSTEM_PROMPT,
  acceptLlmSummary,
  buildLlmSummaryRequest,
  executeLlmSummary,
} from '../../src/engine/index.js';

const input = {
  sessionId: 's',
  messages: [
    { role: 'user', content: 'Fix it', tokenCount: 2 },
    { role: 'assistant', content: 'Done', tokenCount: 1 },
  ],
};

describe('LLM summarizer request (engine.md §3.3)', () => {
  it('asks for the seven sections in order at temperature 0 and 1,024 tokens', () => {
    const request = buildLlmSummaryRequest(input, 'claude-sonnet-4-5');
    expect(request).toEqual({
      system: LLM_SUMMARY_SYSTEM_PROMPT,
      prompt: 'Session transcript to summarize:\n\nuser: Fix it\n\nassistant: Done',
      promptChars: 63,
      model: 'claude-sonnet-4-5',
      temperature: 0,
      maxTokens: 1_024,
    });
    expect(LLM_SUMMARY_SECTIONS).toEqual([
      '## Goal',
      '## Done',
      '## In Progress',
      '## Blocked',
      '## Decisions',
      '## Relevant Files',
      '## Next Steps',
    ]);
    const positions = LLM_SUMMARY_SECTIONS.map((header) => LLM_SUMMARY_SYSTEM_PROMPT.indexOf(header));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(LLM_SUMMARY_SYSTEM_PROMPT).not.toContain('Recent Progress');
    // No model: the provider's default, as FreeCode passes `model: undefined`.
    expect(buildLlmSummaryRequest(input, undefined).model).toBeUndefined();
  });

  it('carries the full previous summary first, separated by a rule', () => {
    const previous = 'p'.repeat(3_000);
    const request = buildLlmSummaryRequest({ ...input, previousSummary: previous }, 'm');
    expect(request.prompt).toBe(
      `Previous summary (carry forward and update, don't repeat verbatim):\n\n${previous}\n\n---\n\nSession transcript to summarize:\n\nuser: Fix it\n\nassistant: Done`,
    );
  });

  it('counts the prompt it builds (promptChars = prompt.length, the prompt built only when read)', () => {
    const message = fc.record({
      role: fc.constantFrom('user', 'assistant', 'system'),
      content: fc.string({ unit: 'binary', maxLength: 40 }),
      tokenCount: fc.nat(),
    });
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
        (messages, previousSummary) => {
          const request = buildLlmSummaryRequest({ sessionId: 's', messages, previousSummary }, 'm');
          const parts = [
            ...(previousSummary
              ? [`Previous summary (carry forward and update, don't repeat verbatim):\n\n${previousSummary}`]
              : []),
            `Session transcript to summarize:\n\n${messages.map((m) => `${m.role}: ${m.content}`).join('\n\n')}`,
          ];
          expect(request.promptChars).toBe(parts.join('\n\n---\n\n').length);
          expect(request.prompt).toBe(parts.join('\n\n---\n\n'));
        },
      ),
    );
  });

  it('trims a reply and treats an empty one as a failure', () => {
    expect(acceptLlmSummary({ ok: true, content: '  ## Goal\n- x \n' })).toEqual({ ok: true, content: '## Goal\n- x' });
    expect(acceptLlmSummary({ ok: true, content: ' \n ' })).toEqual({
      ok: false,
      error: 'provider returned an empty summary',
    });
    expect(acceptLlmSummary({ ok: false, error: 'timeout' })).toEqual({ ok: false, error: 'timeout' });
  });

  it('adapts an async provider: content accepted, throws and empties become failures', async () => {
    const request = buildLlmSummaryRequest(input, 'm');
    await expect(executeLlmSummary({ execute: async () => ({ content: ' ok ' }) }, request)).resolves.toEqual({
      ok: true,
      content: 'ok',
    });
    await expect(executeLlmSummary({ execute: async () => ({}) }, request)).resolves.toEqual({
      ok: false,
      error: 'provider returned an empty summary',
    });
    await expect(
      executeLlmSummary({ execute: async () => Promise.reject(new Error('429 rate limited')) }, request),
    ).resolves.toEqual({ ok: false, error: '429 rate limited' });
  });
});
