/** A program embedding cachecost gets what the CLI prints: the use cases, called from the library entry with plain options. */
import { describe, expect, it } from 'vitest';
import { billSessions, buildScenarios, flagSessions, simulateSessions } from '../../src/index.js';
import { cli } from '../cli/run.js';

// One small FreeCode home and a Claude Code tree: what matters is that both paths give the same bytes.
const DATASET = ['test/fixtures/freecode/home-newest', 'test/fixtures/claude-code'];

describe('use cases from the library entry', () => {
  it('simulateSessions returns the report `simulate --json` prints', async () => {
    const [library, printed] = await Promise.all([
      simulateSessions({ paths: DATASET, scenarios: buildScenarios(['freecode', 'none'], {}) }),
      cli(['simulate', '--json', ...DATASET]),
    ]);
    expect(printed.code).toBe(0);
    expect(library.report.sessions.length).toBeGreaterThan(0);
    expect(`${JSON.stringify(library.report, null, 2)}\n`).toBe(printed.stdout);
  });

  it('flagSessions returns the report `flags --json --target 80k` prints', async () => {
    const [library, printed] = await Promise.all([
      flagSessions({ paths: DATASET, families: ['freecode'], overrides: { targetTokens: [80_000] } }),
      cli(['flags', '--json', '--target', '80k', ...DATASET]),
    ]);
    expect(printed.code).toBe(0);
    expect(library.report.sessions).toBeGreaterThan(0);
    expect(`${JSON.stringify(library.report, null, 2)}\n`).toBe(printed.stdout);
  });

  it('billSessions returns the report `report --json --by model` prints', async () => {
    const [library, printed] = await Promise.all([
      billSessions({ paths: DATASET, by: 'model' }),
      cli(['report', '--json', '--by', 'model', ...DATASET]),
    ]);
    expect(printed.code).toBe(0);
    expect(library.total.requests).toBeGreaterThan(0);
    expect(`${JSON.stringify(library, null, 2)}\n`).toBe(printed.stdout);
  });
});
