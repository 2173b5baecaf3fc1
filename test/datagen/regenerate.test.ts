/**
 * The committed dataset is exactly what the generator makes: regenerating into a temporary
 * directory gives the same files, byte for byte (datasets/ is
 * generated, so a change to the generator must show up as a change to the committed files).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeDataset } from '../../src/datagen/dataset.js';
import { DATASET_DIR, listFiles } from './read-home.js';

describe('datasets/freecode', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'cachecost-datagen-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('regenerates byte for byte', () => {
    const sessions = writeDataset(outDir);
    expect(sessions.map((s) => s.report.name)).toEqual([
      'runaway',
      'runaway-65f171fa',
      'runaway-08e19c43',
      'overflow-loop',
      'blocked-hook-storm',
      'cache-bust-pruning',
      'healthy',
    ]);
    const committed = listFiles(DATASET_DIR);
    const regenerated = listFiles(outDir);
    expect(regenerated).toEqual(committed);
    for (const file of committed) {
      const a = readFileSync(join(DATASET_DIR, file));
      const b = readFileSync(join(outDir, file));
      expect(b.equals(a), `${file} differs from the committed copy (run npm run datasets)`).toBe(true);
    }
  });
});
