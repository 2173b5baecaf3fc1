import { describe, expect, it } from 'vitest';
import { escapeHtml, renderSimulateHtml } from '../../src/report/simulate-html.js';
import type { ScenarioResult, SimulateReport } from '../../src/report/simulate-report.js';

const usage = { promptTokens: 1_000, cacheReadTokens: 800, cacheWriteTokens: 200, uncachedInputTokens: 0, outputTokens: 50, unpricedRequests: 0 };

function result(scenario: string, costUsd: number | null): ScenarioResult {
  return {
    ...usage,
    costUsd,
    scenario,
    savingVsRecorded: { promptTokens: 0, costUsd: 0, pct: 0 },
    compactions: 0,
    blockedCompactions: 0,
    overflows: 0,
    failedTurns: 0,
    summarizeRequests: 0,
    peakContextTokens: 1_050,
    flags: ['<b>cache-bust</b>'],
  };
}

/** A report whose log-derived strings try to inject markup. */
const hostile: SimulateReport = {
  assumption: 'same items, same order',
  scenarios: [],
  sessions: [
    {
      sessionId: '<script>alert(1)</script>',
      source: 'claude-code',
      model: 'm"odel\'<x>',
      recordedPolicy: 'none & more',
      charsPerToken: 4,
      staticBlockTokens: 12_000,
      recorded: { ...usage, costUsd: 0.01, requests: 3 },
      fidelity: { modelledRequests: 3, promptTokensErrorPct: 0.1, costErrorPct: null, medianRequestErrorPct: 0.2, medianCacheReadErrorPct: null, note: '<img src=x onerror=alert(1)>' },
      results: [result('recorded', 0.01), result('none', null)],
    },
  ],
  totals: { sessions: 1, recorded: { ...usage, costUsd: 0.01, requests: 3 }, results: [result('recorded', 0.01), result('none', null)] },
  issues: [],
};

describe('simulate --html', () => {
  it('escapes every string that comes from a log', async () => {
    const html = await renderSimulateHtml(hostile);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>cache-bust');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('m&quot;odel&#39;&lt;x&gt;');
    expect(html).toContain('none &amp; more');
    // The chart is inline SVG; an unpriced scenario is left out of it, never drawn at $0.
    expect(html).toContain('<svg');
    expect(html).toContain('unpriced');
  });

  it('escapeHtml covers the five characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
