/**
 * The `simulate` pipeline: load each session, replay it under every scenario, insert its rows in
 * DuckDB, then read the reports back with SQL. Sessions stream through one at a time, so memory
 * holds one session's content plus the tables.
 */
import { join } from 'node:path';
import type { PriceTable } from '../cost/index.js';
import { CSV_EXPORTS, CostDb, loadBundledPriceTable, loadPricingFile } from '../cost/index.js';
import { ensureDirectory } from '../cost/output-path.js';
import { writeFileAtomic } from '../report/atomic-write.js';
import type { CsvColumn } from '../report/csv.js';
import { csvChunks } from '../report/csv.js';
import type { SessionFacts, SimulateReport } from '../report/simulate-report.js';
import { buildSimulateReport } from '../report/simulate-report.js';
import { CachecostError } from '../session/errors.js';
import type { IngestIssue, Session } from '../session/model.js';
import { modelFactsFor } from '../simulate/model-facts.js';
import type { Scenario } from '../simulate/scenario.js';
import type { SessionSimulation } from '../simulate/simulate-session.js';
import { isReplayable, simulateSession } from '../simulate/simulate-session.js';
import type { ModelFacts } from '../simulate/replay.js';
import { BASELINE_SCENARIO, detectSessionFlags } from '../detect/detect-session.js';
import { DEFAULT_THRESHOLDS } from '../detect/thresholds.js';
import { fidelityNote, scenarioRows, simulationRows } from '../simulate/to-rows.js';
import { forEachSession } from './load-sessions.js';

export type SimulationRequest = {
  readonly paths: readonly string[];
  readonly scenarios: readonly Scenario[];
  readonly pricingFile: string | null;
  readonly dbPath: string | null;
  readonly csvDir: string | null;
  /** Told the number of sessions once discovered, then once per session done (a progress bar). */
  readonly progress?: { start(total: number): void; increment(): void } | null;
};

export type SimulationOutcome = {
  readonly report: SimulateReport;
  /** One-line notes for stderr (unpriced models, sessions that cannot be replayed). */
  readonly notices: readonly string[];
};

/** Model facts for the replay, resolved once per model name from the price table. */
export const modelFactsLookup = modelFactsFor;

/** The price table: the bundled one, overlaid by `--pricing` when given. */
export async function resolvePrices(pricingFile: string | null): Promise<PriceTable> {
  const bundled = loadBundledPriceTable();
  if (pricingFile === null) return bundled;
  return (await loadPricingFile(pricingFile, bundled)).table;
}

/** The kinds of flag each scenario raises (default thresholds), for the sessions table. */
function flagsByScenario(simulation: SessionSimulation, baseline: Scenario, prices: PriceTable, modelFacts: (model: string) => ModelFacts): Map<string, string[]> {
  const examined = simulation.results.filter((r) => r.scenario.family !== 'recorded').map((r) => r.scenario.name);
  const byScenario = new Map<string, string[]>();
  for (const flag of detectSessionFlags(simulation, { prices, modelFacts, thresholds: DEFAULT_THRESHOLDS, baseline, examined })) {
    const list = byScenario.get(flag.scenario) ?? [];
    list.push(flag.kind);
    byScenario.set(flag.scenario, list);
  }
  return byScenario;
}

/** Runs the whole simulation and returns the report (and writes CSV files when asked). */
export async function runSimulation(request: SimulationRequest): Promise<SimulationOutcome> {
  const prices = await resolvePrices(request.pricingFile);
  // The flags column needs the default-target scenario their dollars are measured against.
  const baseline = request.scenarios.find((s) => s.name === BASELINE_SCENARIO.name && JSON.stringify(s.params) === JSON.stringify(BASELINE_SCENARIO.params));
  const db = await CostDb.open({ prices, path: request.dbPath });
  // A `--db` file is replaced only when the run completes (CostDb.close); a failure keeps the old one.
  let completed = false;
  try {
    await db.insertScenarios(scenarioRows(request.scenarios));
    const facts: SessionFacts[] = [];
    const skipped: string[] = [];
    const issues: IngestIssue[] = [...(await forEachSession(request.paths, { content: 'text' }, async (session: Session) => {
      request.progress?.increment();
      if (!isReplayable(session)) {
        skipped.push(session.id);
        return;
      }
      const provider = session.requests.find((r) => r.provider !== null)?.provider ?? null;
      const modelFacts = modelFactsLookup(prices, provider);
      const simulation = simulateSession(session, request.scenarios, { modelFacts });
      const rows = simulationRows(simulation, baseline === undefined ? undefined : flagsByScenario(simulation, baseline, prices, modelFacts));
      await db.insertRequests(rows.requests);
      await db.insertCompactions(rows.compactions);
      await db.insertSessions(rows.sessions);
      facts.push({
        sessionId: session.id,
        model: simulation.model,
        recordedPolicy: simulation.recordedPolicy.basis,
        charsPerToken: 1 / simulation.calibration.tokensPerChar,
        staticBlockTokens: simulation.calibration.staticBlockTokens,
        fidelityNote: fidelityNote(simulation),
      });
    }, (total) => request.progress?.start(total)))];
    const report = buildSimulateReport({
      scenarios: request.scenarios,
      facts,
      sessionCosts: await db.sessionCosts(),
      sessionSavings: await db.sessionSavings(),
      scenarioCosts: await db.scenarioCosts(),
      scenarioSavings: await db.scenarioSavings(),
      fidelity: await db.fidelity(),
      issues,
    });
    const notices: string[] = [];
    if (skipped.length > 0) notices.push(`${skipped.length} session(s) without per-request data were not replayed: ${skipped.join(', ')}`);
    for (const unpriced of await db.unpricedModels()) {
      notices.push(`model "${unpriced.model}" is unpriced (${unpriced.reason}): ${unpriced.requests} requests left out of every cost`);
    }
    if (request.csvDir !== null) await writeCsvTables(db, request.csvDir);
    completed = true;
    return { report, notices };
  } finally {
    if (completed) db.close();
    else db.abandon();
  }
}

async function writeCsvTables(db: CostDb, dir: string): Promise<void> {
  try {
    await ensureDirectory(dir);
  } catch (error) {
    throw new CachecostError('IO_ERROR', `cannot create directory ${dir}: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const name of CSV_EXPORTS) {
    const table = await db.exportCsv(name);
    const columns: CsvColumn<(typeof table.rows)[number]>[] = table.columns.map((header) => ({ header, value: (row) => row[header] ?? null }));
    await writeFileAtomic(join(dir, `${name}.csv`), csvChunks(columns, table.rows));
  }
}
