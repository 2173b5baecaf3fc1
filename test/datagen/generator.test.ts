/**
 * The generator is a function of its seed: the same plan gives the same bytes, another seed
 * other bytes; its content does not repeat itself; the benchmark corpus streams to disk.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusPlan, generateCorpus } from '../../src/datagen/corpus.js';
import { gerund, pastTense, plural, thirdPerson, withArticle } from '../../src/datagen/english.js';
import { simulateSession, type SessionFiles } from '../../src/datagen/simulator.js';
import type { SessionPlan } from '../../src/datagen/session-plan.js';
import { DATASET_DIR, readHome } from './read-home.js';

function simulate(plan: SessionPlan): { rollout: string; files: SessionFiles } {
  const chunks: string[] = [];
  const files = simulateSession(plan, () => ({ write: (line: string) => chunks.push(line) }));
  return { rollout: chunks.join(''), files };
}

function bytesOf(run: { rollout: string; files: SessionFiles }): string {
  return [run.rollout, ...run.files.storeLines, run.files.metaJson, run.files.memoryJson ?? ''].join('\n');
}

describe('determinism', () => {
  // Deliberate bug it caught: a memory message id drawn from Math.random() instead of the stream.
  it('property: simulating a plan twice gives identical files', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 4 }), (seed, index) => {
        const plan = { ...corpusPlan(seed, index), runs: corpusPlan(seed, index).runs.slice(0, 3) };
        return bytesOf(simulate(plan)) === bytesOf(simulate(plan));
      }),
      { numRuns: 6 },
    );
  });

  it('another seed gives other content and another session id', () => {
    const plan = { ...corpusPlan(3, 0), runs: corpusPlan(3, 0).runs.slice(0, 2) };
    const a = simulate(plan);
    const b = simulate({ ...plan, seed: plan.seed + 1 });
    expect(a.files.sessionId).not.toBe(b.files.sessionId);
    expect(a.rollout).not.toBe(b.rollout);
  });
});

describe('content', () => {
  const home = readHome(DATASET_DIR);

  it('never repeats a long assistant text, and long tool outputs are almost all distinct', () => {
    for (const s of home.values()) {
      const texts = s.store
        .filter((m) => m.role === 'assistant')
        .flatMap((m) => m.parts.filter((p) => p.type === 'text').map((p) => p.content ?? ''))
        .filter((t) => t.length > 300);
      expect(new Set(texts).size).toBe(texts.length);
      const outputs = s.events
        .filter((e) => e.type === 'function.output')
        .map((e) => String(e['output']))
        .filter((o) => o.length > 2_000);
      // Re-reading an unchanged file legitimately returns the same text; anything else is distinct.
      expect(new Set(outputs).size / outputs.length).toBeGreaterThan(0.9);
    }
  });

  it('writes code that never uses a reserved word as an identifier', () => {
    for (const s of home.values()) {
      for (const e of s.events.filter((x) => x.type === 'function.output')) {
        const output = String(e['output']);
        expect(output).not.toMatch(/import \{ (return|delete|export|import|switch|default|new) \}/);
        expect(output).not.toMatch(/\b(const|let|function) (return|delete|export|import|switch|new)\b/);
      }
    }
  });

  it('inflects English words', () => {
    expect([pastTense('cache'), pastTense('copy'), pastTense('log'), pastTense('build'), pastTense('fetch')]).toEqual([
      'cached',
      'copied',
      'logged',
      'built',
      'fetched',
    ]);
    expect([thirdPerson('fetch'), thirdPerson('copy'), thirdPerson('parse')]).toEqual(['fetches', 'copies', 'parses']);
    expect([gerund('parse'), gerund('emit'), gerund('index')]).toEqual(['parsing', 'emitting', 'indexing']);
    expect([plural('batch'), plural('policy'), plural('index'), plural('key')]).toEqual([
      'batches',
      'policies',
      'indexes',
      'keys',
    ]);
    expect([withArticle('index'), withArticle('unique'), withArticle('batch')]).toEqual([
      'an index',
      'a unique',
      'a batch',
    ]);
  });
});

describe('corpus', () => {
  it('streams sessions into a FreeCode home until the byte target', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cachecost-corpus-'));
    try {
      const summary = generateCorpus({ outDir: dir, targetBytes: 1_500_000, seed: 5, maxSessions: 4 });
      expect(summary.sessions).toBeGreaterThan(0);
      expect(summary.bytes >= 1_500_000 || summary.sessions === 4).toBe(true);
      expect(readdirSync(join(dir, 'rollout', 'sessions'))).toHaveLength(summary.sessions);
      expect(readdirSync(dir).sort()).toEqual(
        readdirSync(dir)
          .filter((n) => ['memory', 'rollout', 'sessions'].includes(n))
          .sort(),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
