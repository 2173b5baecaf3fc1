/** Checks a generated session's figures against its scenario's expectations. */
import type { ScenarioExpectations } from './scenarios.js';
import type { SessionReport } from './simulator.js';

function within(actual: number, expected: number, pct: number): boolean {
  return Math.abs(actual - expected) <= (expected * pct) / 100;
}

/** The expectations a report misses, as readable lines (empty when it meets them all). */
export function unmetExpectations(report: SessionReport, expect: ScenarioExpectations): string[] {
  const misses: string[] = [];
  const check = (ok: boolean, what: string): void => {
    if (!ok) misses.push(what);
  };
  check(report.userMessages === expect.userMessages, `user messages ${report.userMessages} ≠ ${expect.userMessages}`);
  check(report.requests === expect.requests, `requests ${report.requests} ≠ ${expect.requests}`);
  if (expect.finalPromptTokens !== undefined)
    check(
      within(report.finalPromptTokens, expect.finalPromptTokens, expect.tolerancePct),
      `final prompt ${report.finalPromptTokens} not within ${expect.tolerancePct}% of ${expect.finalPromptTokens}`,
    );
  if (expect.peakPromptTokens !== undefined)
    check(
      within(report.peakPromptTokens, expect.peakPromptTokens, expect.tolerancePct),
      `peak prompt ${report.peakPromptTokens} not within ${expect.tolerancePct}% of ${expect.peakPromptTokens}`,
    );
  if (expect.assistantMessages !== undefined)
    check(
      report.assistantMessages === expect.assistantMessages,
      `assistant messages ${report.assistantMessages} ≠ ${expect.assistantMessages}`,
    );
  if (expect.toolPartsHistogram !== undefined)
    check(
      JSON.stringify(report.toolPartsHistogram) === JSON.stringify(expect.toolPartsHistogram),
      `tool-part histogram ${JSON.stringify(report.toolPartsHistogram)}`,
    );
  if (expect.compactions !== undefined)
    check(
      report.compactions >= expect.compactions[0] && report.compactions <= expect.compactions[1],
      `compactions ${report.compactions} outside [${expect.compactions.join(', ')}]`,
    );
  if (expect.overflowCompactions !== undefined)
    check(
      report.overflowCompactions === expect.overflowCompactions,
      `overflow compactions ${report.overflowCompactions} ≠ ${expect.overflowCompactions}`,
    );
  if (expect.failedTurns !== undefined)
    check(report.failedTurns === expect.failedTurns, `failed turns ${report.failedTurns} ≠ ${expect.failedTurns}`);
  if (expect.minHookBlocks !== undefined)
    check(report.hookBlocks >= expect.minHookBlocks, `hook blocks ${report.hookBlocks} < ${expect.minHookBlocks}`);
  if (expect.microcompactRuns !== undefined)
    check(
      report.microcompactRuns === expect.microcompactRuns,
      `microcompact runs ${report.microcompactRuns} ≠ ${expect.microcompactRuns}`,
    );
  return misses;
}
