/**
 * Writes simulated sessions into a FreeCode home layout (engine.md §6.1, §7.1, §4.1):
 * `rollout/sessions/<id>/events.jsonl`, `sessions/<projectDir>/<id>/{meta.json,messages.jsonl}`
 * and `memory/<id>/memory.json`. Lines are streamed through a buffered synchronous writer, so a
 * large corpus never becomes one string. The only module of the generator that touches the disk.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, writeSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CachecostError } from '../session/errors.js';
import type { LineSink } from './rollout.js';
import type { SessionPlan } from './session-plan.js';
import { simulateSession, type SessionFiles, type SessionReport } from './simulator.js';

const FLUSH_CHARS = 1 << 20;

/** A line sink that appends to a file in ~1 MB chunks. */
export class BufferedFileWriter implements LineSink {
  private readonly fd: number;
  private chunks: string[] = [];
  private pendingChars = 0;
  private closed = false;
  bytes = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  write(line: string): void {
    this.chunks.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars >= FLUSH_CHARS) this.flush();
  }

  private flush(): void {
    if (this.chunks.length === 0) return;
    const buffer = Buffer.from(this.chunks.join(''), 'utf8');
    writeSync(this.fd, buffer);
    this.bytes += buffer.length;
    this.chunks = [];
    this.pendingChars = 0;
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    closeSync(this.fd);
    this.closed = true;
  }
}

const HOME_ENTRIES = new Set(['rollout', 'sessions', 'memory']);

/**
 * Empties `outDir` (creating it if needed). Refuses a directory holding anything but a FreeCode
 * home's `rollout/`, `sessions/`, `memory/`, so a mistyped path cannot wipe unrelated files.
 */
export function resetHome(outDir: string): void {
  if (existsSync(outDir)) {
    const foreign = readdirSync(outDir).filter((name) => !HOME_ENTRIES.has(name));
    if (foreign.length > 0)
      throw new CachecostError(
        'BAD_ARGUMENT',
        `refusing to wipe ${outDir}: it holds ${foreign.slice(0, 3).join(', ')} besides a FreeCode home`,
      );
    for (const name of HOME_ENTRIES) rmSync(join(outDir, name), { recursive: true, force: true });
  }
  mkdirSync(outDir, { recursive: true });
}

export interface WrittenSession {
  readonly report: SessionReport;
  readonly bytes: number;
  readonly files: readonly string[];
  /** The session's own directories (its id's rollout, store and memory dirs). */
  readonly dirs: readonly string[];
}

/** Deletes a written session (its own directories, and its project directory when left empty). */
export function removeSession(session: WrittenSession): void {
  for (const dir of session.dirs) rmSync(dir, { recursive: true, force: true });
  for (const dir of session.dirs) {
    const parent = dirname(dir);
    if (basename(dirname(parent)) === 'sessions' && existsSync(parent) && readdirSync(parent).length === 0)
      rmSync(parent, { recursive: true });
  }
}

/** Simulates `plan` and writes its files under the FreeCode home `outDir`. */
export function writeSession(outDir: string, plan: SessionPlan): WrittenSession {
  const opened: { writer: BufferedFileWriter | null } = { writer: null };
  let session: SessionFiles;
  try {
    session = simulateSession(plan, (sessionId) => {
      const dir = join(outDir, 'rollout', 'sessions', sessionId);
      mkdirSync(dir, { recursive: true });
      const writer = new BufferedFileWriter(join(dir, 'events.jsonl'));
      opened.writer = writer;
      return writer;
    });
  } finally {
    opened.writer?.close();
  }
  const rollout = opened.writer;
  if (rollout === null) throw new Error(`${plan.name}: the simulator opened no rollout`);
  const storeDir = join(outDir, 'sessions', session.projectDir, session.sessionId);
  mkdirSync(storeDir, { recursive: true });
  const store = new BufferedFileWriter(join(storeDir, 'messages.jsonl'));
  for (const line of session.storeLines) store.write(`${line}\n`);
  store.close();
  writeFileSync(join(storeDir, 'meta.json'), session.metaJson);
  const files = [
    join(outDir, 'rollout', 'sessions', session.sessionId, 'events.jsonl'),
    join(storeDir, 'messages.jsonl'),
    join(storeDir, 'meta.json'),
  ];
  const dirs = [join(outDir, 'rollout', 'sessions', session.sessionId), storeDir];
  let bytes = rollout.bytes + store.bytes + Buffer.byteLength(session.metaJson);
  if (session.memoryJson !== null) {
    const memoryDir = join(outDir, 'memory', session.sessionId);
    mkdirSync(memoryDir, { recursive: true });
    writeFileSync(join(memoryDir, 'memory.json'), session.memoryJson);
    files.push(join(memoryDir, 'memory.json'));
    dirs.push(memoryDir);
    bytes += Buffer.byteLength(session.memoryJson);
  }
  return { report: session.report, bytes, files, dirs };
}
