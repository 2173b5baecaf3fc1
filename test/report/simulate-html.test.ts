import { describe, expect, it } from 'vitest';
import type { FlagJson } from '../../src/report/flag-json.js';
import type { Provenance } from '../../src/report/html-page.js';
import type { SessionDetail, TimelinePoint } from '../../src/report/simulate-details.js';
import { downsample, escapeHtml, MAX_TIMELINE_POINTS, renderSimulateHtml } from '../../src/report/simulate-html.js';
import type { ScenarioResult, SimulateReport } from '../../src/report/simulate-report.js';

const usage = {
  promptTokens: 1_000,
  cacheReadTokens: 800,
  cacheWriteTokens: 200,
  uncachedInputTokens: 0,
  outputTokens: 50,
  unpricedRequests: 0,
  costComplete: true,
};

function result(scenario: string, costUsd: string | null): ScenarioResult {
  return {
    ...usage,
    costUsd,
    scenario,
    savingVsRecorded: { promptTokens: 0, costUsd: '0', pct: 0 },
    compactions: 0,
    blockedCompactions: 0,
    rejectedOverflows: 0,
    failedTurns: 0,
    summarizeRequests: 0,
    peakContextTokens: 1_050,
    flags: ['<b>cache-bust</b>'],
  };
}

const SESSION = '<script>alert(1)</script>';

/** A report whose log-derived strings try to inject markup. */
const hostile: SimulateReport = {
  assumption: 'same items, same order',
  scenarios: [],
  sessions: [
    {
      sessionId: SESSION,
      source: 'claude-code',
      model: 'm"odel\'<x>',
      recordedPolicy: 'none & more',
      charsPerToken: 4,
      staticBlockTokens: 12_000,
      recorded: { ...usage, costUsd: '0.01', requests: 3 },
      fidelity: {
        modelledRequests: 3,
        promptTokensErrorPct: 0.1,
        costErrorPct: null,
        medianRequestErrorPct: 0.2,
        medianCacheReadErrorPct: null,
        note: '<img src=x onerror=alert(1)>',
      },
      results: [result('recorded', '0.01'), result('none', null)],
    },
  ],
  totals: {
    sessions: 1,
    recorded: { ...usage, costUsd: '0.01', requests: 3 },
    results: [result('recorded', '0.01'), result('none', null)],
  },
  issues: [],
};

const point = (index: number, fields: Partial<TimelinePoint> = {}): TimelinePoint => ({
  index,
  kind: 'request',
  cacheReadTokens: 100 * index,
  cacheWriteTokens: 50,
  uncachedInputTokens: 5,
  contextTokens: 100 * index + 60,
  compactionBefore: false,
  failed: false,
  ...fields,
});

const flag: FlagJson = {
  kind: 'cache-bust',
  title: 'cache bust',
  severity: 'warning',
  sessionId: SESSION,
  scenario: 'recorded',
  basis: 'measured',
  requests: { first: 1, last: 2 },
  evidence: { '<i>x</i>': 3 },
  summary: '<svg onload=alert(1)>',
  atStakeUsd: '1.5',
  stakeAgainst: 'a stable cache',
  stakeNote: null,
};

const detail: SessionDetail = {
  sessionId: SESSION,
  project: '/home/<u>/app',
  startedAtMs: Date.UTC(2026, 0, 2, 3, 4),
  flags: [flag],
  scenarios: [
    {
      scenario: 'recorded',
      points: [point(0), point(1, { compactionBefore: true }), point(2, { kind: 'rejected_overflow', failed: true })],
      costByClass: { uncachedInput: '0.001', cacheRead: '0.002', cacheWrite: '0.003', output: '0.004' },
    },
  ],
};

const provenance: Provenance = {
  version: '9.9.9',
  generatedAt: null,
  command: 'cachecost simulate <x>',
  inputs: ['/logs/<x>'],
  priceTable: 'bundled table of 2026-01-01',
};

describe('simulate --html', () => {
  it('escapes every string that comes from a log', async () => {
    const html = await renderSimulateHtml({ report: hostile, details: [detail], provenance });
    for (const raw of [
      '<script>alert',
      '<img src=x',
      '<b>cache-bust',
      '<svg onload',
      '<i>x</i>',
      '<u>',
      'simulate <x>',
    ])
      expect(html).not.toContain(raw);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('m&quot;odel&#39;&lt;x&gt;');
    expect(html).toContain('none &amp; more');
    // Charts are inline SVG; an unpriced scenario is never drawn or written as $0.
    expect(html).toContain('<svg');
    expect(html).toContain('unpriced');
    // One script, allowed by its hash; nothing is loaded from elsewhere.
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    // Drill-down, table of contents, provenance.
    expect(html).toContain('id="s-1"');
    expect(html).toContain('href="#s-1"');
    expect(html).toContain('cachecost 9.9.9');
    expect(html).toContain('$1.50 at stake');
  });

  it('is the same bytes for the same input (no clock inside the renderer)', async () => {
    const input = { report: hostile, details: [detail], provenance };
    expect(await renderSimulateHtml(input)).toBe(await renderSimulateHtml(input));
  });

  it('downsamples a long timeline but keeps every marker, and says so', () => {
    const points = Array.from({ length: 5_000 }, (_, i) =>
      point(i, { compactionBefore: i % 997 === 0, kind: i === 4_321 ? 'rejected_overflow' : 'request' }),
    );
    const { kept, stride } = downsample(points, MAX_TIMELINE_POINTS);
    expect(stride).toBe(Math.ceil(5_000 / MAX_TIMELINE_POINTS));
    expect(kept.length).toBeLessThanOrEqual(MAX_TIMELINE_POINTS + 10);
    expect(kept.filter((p) => p.compactionBefore)).toHaveLength(points.filter((p) => p.compactionBefore).length);
    expect(kept.some((p) => p.kind === 'rejected_overflow')).toBe(true);
    expect(kept.at(-1)?.n).toBe(5_000);
    expect(downsample(points.slice(0, 10), MAX_TIMELINE_POINTS).stride).toBe(1);
  });

  it('escapeHtml covers the five characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
