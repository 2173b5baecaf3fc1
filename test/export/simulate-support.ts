/** Test helper: `simulate --json` over logs or exports, and the comparison of two summaries figure for figure. */
import { expect } from 'vitest';
import type { SimulateReport } from '../../src/report/simulate-report.js';
import { isIngestNote } from '../../src/session/model.js';
import { renderSimulateReport } from '../../src/report/simulate-text.js';
import { cli } from '../cli/run.js';

export type Summary = {
  readonly report: SimulateReport;
  /** The notices on stderr (`cachecost: …` lines), each with its list of ids sorted. */
  readonly notices: readonly string[];
};

/** A notice with the ids it lists in sorted order (a fleet lists them by host, logs by discovery). */
function sortedIds(line: string): string {
  const match = /^(cachecost: \d+ session\(s\) without per-request data were not replayed: )(.*)$/.exec(line);
  return match === null ? line : `${match[1] ?? ''}${(match[2] ?? '').split(', ').sort().join(', ')}`;
}

export async function summaryOf(args: readonly string[]): Promise<Summary> {
  const result = await cli(['simulate', '--json', ...args]);
  expect(result.stderr).not.toMatch(/internal error/);
  expect(result.code, result.stderr).toBe(0);
  const notices = result.stderr
    .split('\n')
    .filter((line) => line.startsWith('cachecost: '))
    .map(sortedIds);
  return { report: JSON.parse(result.stdout) as SimulateReport, notices };
}

/** The report with its sessions in id order (over exports they come by host, over logs in discovery order). */
function byId(report: SimulateReport): SimulateReport {
  return { ...report, sessions: [...report.sessions].sort((a, b) => a.sessionId.localeCompare(b.sessionId)) };
}

/**
 * Every figure equal: the JSON report (every session, scenario, token count, exact USD string,
 * saving, percentage, fidelity measure, failed turn and flag) and the terminal text it renders;
 * the notices alike. Ingest issues are compared by count only: the exports hold counts, not lines.
 */
export function expectSameSummary(fleet: Summary, local: Summary): void {
  const { issues: fleetIssues, ...fleetRest } = byId(fleet.report);
  const { issues: localIssues, ...localRest } = byId(local.report);
  expect(localRest.sessions.length).toBeGreaterThan(0);
  expect(fleetRest).toEqual(localRest);
  expect(renderSimulateReport(byId(fleet.report))).toBe(renderSimulateReport(byId(local.report)));
  expect(fleetIssues).toEqual([]);
  // Over logs the issues are summed up in one line (and notes in another); over exports, one count.
  const problems = localIssues.filter((issue) => !isIngestNote(issue)).length;
  const summaryLine = /^cachecost: (note: |the runs that wrote these exports skipped )|; --verbose lists them$/;
  expect(fleet.notices.filter((line) => !summaryLine.test(line))).toEqual(
    local.notices.filter((line) => !summaryLine.test(line)),
  );
  const skippedLine = fleet.notices.find((line) => line.includes('the runs that wrote these exports skipped'));
  expect(skippedLine ?? null).toEqual(problems === 0 ? null : expect.stringContaining(`skipped ${problems} input`));
}
