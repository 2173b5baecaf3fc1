/** What one user message asks for: the thread that ties a run's prompts, tool calls and prose together. */
import type { TaskKind } from './vocab.js';

export interface TaskContext {
  readonly kind: TaskKind;
  /** Package directory, e.g. `packages/ingest`. */
  readonly packageDir: string;
  /** Package name, e.g. `@ledger/ingest`. */
  readonly packageName: string;
  readonly language: 'ts' | 'py';
  /** Source files the task is about (repo-relative). */
  readonly files: string[];
  readonly testFiles: string[];
  /** Function/class names the task is about. */
  readonly symbols: string[];
  /** A short noun phrase naming the feature or bug, e.g. `retry backoff for stale webhooks`. */
  readonly concept: string;
  /** An error message the bug produces (used in prompts, traces and failing tests). */
  readonly errorText: string;
}
