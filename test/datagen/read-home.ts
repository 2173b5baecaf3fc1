/**
 * A deliberately simple reader of a FreeCode home for the dataset tests (the project's ingest is
 * not used here, so these tests check the files themselves): every session's meta, store lines,
 * rollout events and memory state, keyed by the scenario name at the start of the title.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RolloutEvent {
  readonly type: string;
  readonly id: string;
  readonly seq: number;
  readonly aggregateID: string;
  readonly timestamp: number;
  readonly [field: string]: unknown;
}

export interface StorePart {
  readonly type: string;
  readonly content?: string;
  readonly tool?: { readonly name: string; readonly args: Record<string, unknown> };
  readonly result?: string;
}

export interface StoreLine {
  readonly synthetic?: string;
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly parts: readonly StorePart[];
  readonly timestamp: number;
  readonly usage?: Record<string, number>;
}

export interface HomeSession {
  readonly name: string;
  readonly meta: Record<string, unknown>;
  readonly store: StoreLine[];
  readonly events: RolloutEvent[];
  readonly memory: {
    readonly summaries: { readonly content: string; readonly summaryTokenCount: number }[];
    readonly messages: unknown[];
  } | null;
  readonly paths: { readonly rollout: string; readonly storeDir: string };
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

/** Every session of the home at `dir`, by scenario name (the title up to the first colon). */
export function readHome(dir: string): Map<string, HomeSession> {
  const sessions = new Map<string, HomeSession>();
  for (const project of readdirSync(join(dir, 'sessions'))) {
    for (const id of readdirSync(join(dir, 'sessions', project))) {
      const storeDir = join(dir, 'sessions', project, id);
      const meta = JSON.parse(readFileSync(join(storeDir, 'meta.json'), 'utf8')) as Record<string, unknown>; // test boundary: the file is ours
      const name = String(meta['title']).split(':')[0] ?? '';
      const rollout = join(dir, 'rollout', 'sessions', id, 'events.jsonl');
      const memoryPath = join(dir, 'memory', id, 'memory.json');
      sessions.set(name, {
        name,
        meta,
        store: lines(join(storeDir, 'messages.jsonl')).map((l) => JSON.parse(l) as StoreLine), // test boundary
        events: lines(rollout).map((l) => JSON.parse(l) as RolloutEvent), // test boundary
        memory: existsSync(memoryPath) ? (JSON.parse(readFileSync(memoryPath, 'utf8')) as HomeSession['memory']) : null, // test boundary
        paths: { rollout, storeDir },
      });
    }
  }
  return sessions;
}

/** Every file under `dir`, as sorted relative paths. */
export function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

export function num(event: RolloutEvent, field: string): number {
  const value = event[field];
  if (typeof value !== 'number') throw new Error(`${event.type} #${event.seq}: ${field} is not a number`);
  return value;
}

export function optionalNum(event: RolloutEvent, field: string): number | undefined {
  const value = event[field];
  return typeof value === 'number' ? value : undefined;
}

export const DATASET_DIR = fileURLToPath(new URL('../../datasets/freecode', import.meta.url));
