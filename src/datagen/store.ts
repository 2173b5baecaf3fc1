/**
 * The session store (`sessions/<projectDir>/<id>/`, engine.md §7): `messages.jsonl` lines in the
 * `SerializedMessage` key order (`synthetic` first when present, then `id, role, parts,
 * timestamp, usage`), `meta.json`, and the project directory name of `formatSessionDirName`.
 */

export type StorePart =
  | { readonly type: 'text'; readonly content: string }
  | {
      readonly type: 'tool';
      readonly tool: { readonly name: string; readonly args: Record<string, unknown> };
      readonly result: string;
    };

/** One `messages.jsonl` line plus what the simulator needs to render it for the provider. */
export interface StoredMessage {
  readonly synthetic?: 'steer';
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly parts: readonly StorePart[];
  readonly timestamp: number;
  usage?: Record<string, number>;
  /** Simulator-only: the provider response this assistant message belongs to (not serialized). */
  readonly responseIndex: number | null;
}

/** The JSONL line (without the newline) in FreeCode's key order. */
export function storeLine(message: StoredMessage): string {
  const out: Record<string, unknown> = {};
  if (message.synthetic !== undefined) out['synthetic'] = message.synthetic;
  out['id'] = message.id;
  out['role'] = message.role;
  out['parts'] = message.parts;
  out['timestamp'] = message.timestamp;
  if (message.usage !== undefined) out['usage'] = message.usage;
  return JSON.stringify(out);
}

/** `formatSessionDirName` (§7.1): `/`-separated segments, `-` → `_h_`, `<>:"|?*` removed, joined by `__`. */
export function formatSessionDirName(projectPath: string): string {
  return projectPath
    .replace(/\\/g, '/')
    .replace(/^\/+|\/+$/g, '')
    .split('/')
    .map((segment) => segment.replace(/-/g, '_h_').replace(/[<>:"|?*]/g, ''))
    .join('__');
}

export interface SessionMeta {
  readonly id: string;
  readonly title: string;
  readonly projectPath: string;
  readonly provider: string;
  readonly model: string;
  readonly status: 'active';
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lastTurnAt: number;
  readonly turnCount: number;
}

/** `meta.json` as `JSON.stringify(meta, null, 2)` (§7.2). */
export function metaJson(meta: SessionMeta): string {
  return JSON.stringify(
    {
      id: meta.id,
      title: meta.title,
      projectPath: meta.projectPath,
      provider: meta.provider,
      model: meta.model,
      status: meta.status,
      createdAt: meta.createdAt,
      updatedAt: meta.updatedAt,
      lastTurnAt: meta.lastTurnAt,
      turnCount: meta.turnCount,
    },
    null,
    2,
  );
}
