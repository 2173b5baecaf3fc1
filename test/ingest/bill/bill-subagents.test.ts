/**
 * `report --by session` shows each session's cost with and without its sub-agents: a Claude Code
 * session of 2 own requests and a subagent file of 3 (`test/fixtures/bill-subagents`, written from
 * formats.md), totals computed by hand below, and the Codex forked child of `test/fixtures/bill`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../cli/run.js';

const S = 'cccccccc-0000-4000-8000-00000000000c';
const P = '0190bbbb-0000-7000-8000-000000000001';

type Line = {
  key: string;
  requests: number;
  costUsd: string | null;
  subagentRequests: number | null;
  subagentCostUsd: string | null;
  subagentCostComplete: boolean | null;
  ownCostUsd: string | null;
};

async function reportJson(args: readonly string[]): Promise<{ lines: Line[]; total: Line }> {
  const { code, stdout, stderr } = await cli(['report', ...args, '--json']);
  expect(stderr).not.toMatch(/skipped/);
  expect(code).toBe(0);
  return JSON.parse(stdout) as { lines: Line[]; total: Line };
}

describe('report --by session: sub-agents apart', () => {
  it('gives the Claude Code subagent requests and their cost, and the cost without them', async () => {
    const report = await reportJson(['test/fixtures/bill-subagents', '--by', 'session']);
    // claude-sonnet-4-5: $3 input, $0.30 cache read, $15 output per MTok (no cache writes here).
    // Own:  1000 in + 100 out = 3000 + 1500 = 4500 µ$;  200 in + 10000 read + 50 out = 600 + 3000 + 750 = 4350 µ$.
    // Sub:  500 in + 200 out = 1500 + 3000 = 4500 µ$;  100 in + 2000 read + 300 out = 300 + 600 + 4500 = 5400 µ$;
    //       50 in + 4000 read + 10 out = 150 + 1200 + 150 = 1500 µ$.
    const expected = {
      key: S,
      requests: 5,
      costUsd: '0.02025',
      subagentRequests: 3,
      subagentCostUsd: '0.0114',
      subagentCostComplete: true,
      ownCostUsd: '0.00885',
    };
    expect(report.lines).toEqual([expect.objectContaining(expected)]);
    expect(report.total).toEqual(expect.objectContaining({ ...expected, key: null }));
  });

  it('shows a "Sub-agents" column in the table only when some session has sub-agent requests', async () => {
    const withSub = await cli(['report', 'test/fixtures/bill-subagents', '--by', 'session', '--wide']);
    expect(withSub.stdout).toMatch(/Sub-agents/);
    expect(withSub.stdout).toMatch(/\$0\.01/);
    const byDay = await cli(['report', 'test/fixtures/bill-subagents', '--by', 'day', '--wide']);
    expect(byDay.stdout).not.toMatch(/Sub-agents/);
    const none = await cli(['report', 'datasets/freecode', '--by', 'session', '--wide']);
    expect(none.code).toBe(0);
    expect(none.stdout).not.toMatch(/Sub-agents/);
  });

  it('counts a Codex forked child as sub-agent traffic of its parent session', async () => {
    const report = await reportJson(['test/fixtures/bill/codex', '--by', 'session']);
    const parent = report.lines.find((line) => line.key === P);
    // The child's own two requests (outputs 40 and 30), not its replay of the parent's history.
    expect(parent?.subagentRequests).toBe(2);
    expect(parent?.subagentCostComplete).toBe(true);
  });

  it("report --from gives the same split: exports carry each request's agent id", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cachecost-subagents-'));
    try {
      const args = ['export', 'test/fixtures/bill-subagents', '--out', dir, '--host', 'h', '--run-id', 'r1'];
      const exported = await cli(args);
      expect(exported.code).toBe(0);
      const report = await reportJson(['--from', dir, '--by', 'session']);
      expect(report.lines).toEqual([
        expect.objectContaining({
          key: S,
          costUsd: '0.02025',
          subagentRequests: 3,
          subagentCostUsd: '0.0114',
          subagentCostComplete: true,
          ownCostUsd: '0.00885',
        }),
      ]);
      const table = await cli(['report', '--from', dir, '--by', 'session', '--wide']);
      expect(table.stdout).toMatch(/Sub-agents/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
