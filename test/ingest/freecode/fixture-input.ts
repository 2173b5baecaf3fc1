/** Test helper: parse fixture files into the builder's input, so joins can be tested source by source. */
import { readFileSync } from 'node:fs';
import type { FreecodeSessionInput } from '../../../src/ingest/freecode/build.js';
import { parseMemory } from '../../../src/ingest/freecode/memory.js';
import { parseRolloutLine, type RolloutRecord } from '../../../src/ingest/freecode/rollout.js';
import { EMPTY_META, parseMeta, parseStoreLine, type StoreMessage } from '../../../src/ingest/freecode/store.js';
import type { Line } from '../../../src/ingest/lines.js';
import type { IngestIssue } from '../../../src/session/model.js';

function lines(path: string): Line[] {
  const text = readFileSync(path, 'utf8');
  const parts = text.split('\n');
  const terminated = text.endsWith('\n');
  if (terminated) parts.pop();
  return parts.map((part, i) => ({
    number: i + 1,
    text: part.replace(/\r$/, ''),
    terminated: terminated || i < parts.length - 1,
  }));
}

export type FixtureFiles = {
  readonly sessionId: string;
  readonly rollout?: string;
  readonly messages?: string;
  readonly meta?: string;
  readonly memory?: string;
  readonly projectDir?: string;
};

/** Reads the given files as the adapter would and returns the builder's input. */
export function fixtureInput(files: FixtureFiles): FreecodeSessionInput {
  const issues: IngestIssue[] = [];
  let rollout: FreecodeSessionInput['rollout'] = null;
  if (files.rollout !== undefined) {
    const records: RolloutRecord[] = [];
    for (const line of lines(files.rollout)) {
      const r = parseRolloutLine(line);
      if (r.kind === 'record') records.push(r.record);
      if (r.kind === 'invalid') issues.push({ file: files.rollout, line: line.number, reason: r.reason });
    }
    rollout = { file: files.rollout, records };
  }
  let store: FreecodeSessionInput['store'] = null;
  if (files.messages !== undefined || files.meta !== undefined) {
    const messages: StoreMessage[] = [];
    if (files.messages !== undefined) {
      for (const line of lines(files.messages)) {
        const r = parseStoreLine(line);
        if (r.kind === 'message') messages.push(r.message);
      }
    }
    const meta = files.meta === undefined ? EMPTY_META : parseMeta(readFileSync(files.meta, 'utf8'));
    store = {
      messagesFile: files.messages ?? null,
      metaFile: files.meta ?? null,
      projectDir: files.projectDir ?? null,
      messages,
      meta: 'kind' in meta ? (meta.kind === 'meta' ? meta.meta : EMPTY_META) : meta,
    };
  }
  let memory: FreecodeSessionInput['memory'] = null;
  if (files.memory !== undefined) {
    const m = parseMemory(readFileSync(files.memory, 'utf8'));
    if (m.kind === 'memory') memory = { file: files.memory, memory: m.memory };
  }
  const read = [files.rollout, files.meta, files.messages, files.memory].filter((f): f is string => f !== undefined);
  return { sessionId: files.sessionId, files: read, issues, rollout, store, memory };
}

const ID = '7d3c2a10-5b8e-4f61-9a47-0c2e8f9b1d34';
const HOME = 'test/fixtures/freecode/home-newest';
const STORE_DIR = `${HOME}/sessions/home__dev__work__toml_h_parser/${ID}`;

/** The files of the engine.md §12 example. */
export const SPEC12 = {
  sessionId: ID,
  home: HOME,
  rollout: `${HOME}/rollout/sessions/${ID}/events.jsonl`,
  messagesAfterCompaction: `${STORE_DIR}/messages.jsonl`,
  messagesBeforeCompaction: 'test/fixtures/freecode/spec-12/messages-before-compaction.jsonl',
  meta: `${STORE_DIR}/meta.json`,
  memory: `${HOME}/memory/${ID}/memory.json`,
} as const;
