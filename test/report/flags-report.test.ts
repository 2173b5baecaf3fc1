import { describe, expect, it } from 'vitest';
import type { Flag } from '../../src/detect/flag.js';
import { DEFAULT_THRESHOLDS } from '../../src/detect/thresholds.js';
import { flagJson } from '../../src/report/flag-json.js';
import { buildFlagsReport, renderFlagsReport, stakeText } from '../../src/report/flags-report.js';

function flag(fields: Partial<Flag>): Flag {
  return {
    kind: 'cache-bust',
    severity: 'warning',
    sessionId: '4ba54e41-5bbb-4879-a2f5-6406b85609b4',
    scenario: 'recorded',
    basis: 'measured',
    requests: { first: 3, last: 228 },
    evidence: { collapsedRequests: 188 },
    summary: 'cache reads collapsed',
    stake: { kind: 'priced', picoUsd: 5_674_200_525_000n, against: 'a stable cache' },
    ...fields,
  };
}

describe('the flags report', () => {
  it('keeps dollars as an exact decimal string; unpriced and not-applicable stakes are null with a note', () => {
    expect(flagJson(flag({}))).toMatchObject({
      title: 'cache bust',
      atStakeUsd: '5.674200525',
      stakeAgainst: 'a stable cache',
      stakeNote: null,
    });
    expect(flagJson(flag({ stake: { kind: 'unpriced', against: 'freecode@120000' } }))).toMatchObject({
      atStakeUsd: null,
      stakeNote: 'unpriced',
    });
    const none = flagJson(flag({ stake: { kind: 'none', reason: 'a counting error' } }));
    expect(none).toMatchObject({ atStakeUsd: null, stakeAgainst: null, stakeNote: 'a counting error' });
    expect([
      stakeText(flagJson(flag({}))),
      stakeText(none),
      stakeText(flagJson(flag({ stake: { kind: 'unpriced', against: 'x' } }))),
    ]).toEqual(['$5.67', '-', 'unpriced']);
    expect(stakeText(flagJson(flag({ stake: { kind: 'priced', picoUsd: -1_160_000_000n, against: 'x' } })))).toBe(
      '-$0.0012',
    );
  });

  it('orders flags by scenario, then severity, then dollars, and counts flagged sessions per scenario', () => {
    const report = buildFlagsReport({
      flags: [
        flag({ scenario: 'freecode@80000', severity: 'critical' }),
        flag({}),
        flag({ kind: 'never-compacted', stake: { kind: 'priced', picoUsd: 1n, against: 'x' } }),
        flag({ kind: 'runaway-cost', severity: 'critical' }),
        flag({ kind: 'ttl-mismatch', severity: 'info' }),
      ],
      scenarios: ['recorded', 'freecode@80000'],
      baseline: 'freecode@120000',
      thresholds: DEFAULT_THRESHOLDS,
      sessions: 2,
      ingestIssues: 0,
    });
    expect(report.flags.map((f) => [f.scenario, f.kind])).toEqual([
      ['recorded', 'runaway-cost'],
      ['recorded', 'cache-bust'],
      ['recorded', 'never-compacted'],
      ['recorded', 'ttl-mismatch'],
      ['freecode@80000', 'cache-bust'],
    ]);
    expect(report.flaggedSessions['recorded']).toMatchObject({
      'runaway-cost': 1,
      'cache-bust': 1,
      'compaction-storm': 0,
    });
    const text = renderFlagsReport(report);
    expect(text).toMatch(/^Recorded data: 4 flags \(1 critical, 2 warning, 1 info\) in 1 of 2 sessions\./);
    expect(text).toMatch(/Sessions flagged per scenario/);
    expect(text).toMatch(/│ cache bust +│ +1 │ +1 │/);
  });
});
