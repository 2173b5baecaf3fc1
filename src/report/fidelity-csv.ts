/**
 * `simulate --fidelity-csv`: one row per replayed session with how closely the `recorded` replay
 * reproduces its bill (replay.md §6), over the requests the replay models. A session with none
 * says "n/a", never 0%.
 */
import { poorFidelityReasons } from '../simulate/fidelity.js';
import type { CsvCell, CsvColumn } from './csv.js';
import { csvChunks } from './csv.js';
import type { SessionReport } from './simulate-report.js';

const NOT_MODELLED = 'n/a';

function pctCell(session: SessionReport, value: number | null): CsvCell {
  if (session.fidelity.modelledRequests === 0) return NOT_MODELLED;
  return value === null ? null : Number(value.toFixed(2));
}

function reason(session: SessionReport): string {
  const f = session.fidelity;
  if (f.modelledRequests === 0) return f.note ?? 'no request the replay models';
  return poorFidelityReasons(f).join('; ');
}

const COLUMNS: readonly CsvColumn<SessionReport>[] = [
  { header: 'source', value: (s) => s.source },
  { header: 'session_id', value: (s) => s.sessionId },
  { header: 'model', value: (s) => s.model },
  { header: 'requests', value: (s) => s.fidelity.modelledRequests },
  { header: 'prompt_error_pct', value: (s) => pctCell(s, s.fidelity.promptTokensErrorPct) },
  { header: 'median_request_error_pct', value: (s) => pctCell(s, s.fidelity.medianRequestErrorPct) },
  { header: 'cost_error_pct', value: (s) => pctCell(s, s.fidelity.costErrorPct) },
  { header: 'reason', value: reason },
];

/** The fidelity CSV, sorted by source then session id so that it diffs well. */
export function fidelityCsvChunks(sessions: readonly SessionReport[]): Generator<string> {
  const sorted = [...sessions].sort((a, b) =>
    a.source === b.source ? (a.sessionId < b.sessionId ? -1 : 1) : a.source < b.source ? -1 : 1,
  );
  return csvChunks(COLUMNS, sorted);
}
