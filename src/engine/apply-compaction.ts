/**
 * `applyCompaction` (engine.md §2.4): compact the memory, then trim the stored provider-facing
 * history to its last N user turns.
 */
import type { CompactionResult } from './compaction-result.js';
import type { HistoryPart } from './history-message.js';
import { keepLastNUserTurns } from './keep-last-turns.js';
import type { CompactOptions } from './memory-service.js';
import type { EngineVersion } from './params.js';
import { DEFAULT_PRESERVE_RECENT_TURNS } from './params.js';
import type { SessionStore } from './session-store.js';

/** What `applyCompaction` reads of a stored message. */
export interface StoredMessageLike {
  readonly role: string;
  readonly parts: readonly HistoryPart[];
}

/** Anything that compacts like `MemoryService.compact`. */
export interface Compactor {
  compact(options: CompactOptions): CompactionResult;
}

export interface ApplyCompactionOptions<M extends StoredMessageLike> {
  readonly memory: Compactor;
  readonly store: SessionStore<M>;
  readonly compactOptions: CompactOptions;
  /** Default 2 (`DEFAULT_COMPACTION_CONFIG.preserveRecentTurns`). */
  readonly preserveRecentTurns?: number;
  /** Default newest. */
  readonly version?: EngineVersion;
}

/** Fields as FreeCode returns them; `tokensBefore/After` are memory estimates (§6.6). */
export type ApplyCompactionResult =
  | {
      readonly compacted: true;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      readonly messagesBefore: number;
      readonly messagesAfter: number;
      readonly compaction: CompactionResult & { readonly kind: 'compacted' };
    }
  | {
      readonly compacted: false;
      /** The hook's reason when blocked, else "nothing to compact" (Aug: undefined for a reasonless block). */
      readonly reason: string | undefined;
      readonly tokensBefore: number;
      readonly tokensAfter: number;
      readonly messagesBefore: 0;
      readonly messagesAfter: 0;
      readonly compaction: CompactionResult;
    };

export const NOTHING_TO_COMPACT = 'nothing to compact';
export const BLOCKED_WITHOUT_REASON = 'blocked by a PreCompact hook';

/**
 * Newest §2.4 step 4: when no preserved message carries a codemode snapshot, the newest one found
 * on a dropped message is copied onto the first part of the first preserved message.
 */
export function carryCodemodeStore<M extends StoredMessageLike>(stored: readonly M[], preserve: readonly M[]): M[] {
  const hasSnapshot = (message: M): boolean => message.parts.some((part) => part.codemodeStore !== undefined);
  if (preserve.some(hasSnapshot)) return [...preserve];
  const kept = new Set<M>(preserve);
  let snapshot: unknown = undefined;
  for (const message of stored) {
    if (kept.has(message)) continue;
    for (const part of message.parts) {
      if (part.codemodeStore !== undefined) snapshot = part.codemodeStore;
    }
  }
  const [first, ...others] = preserve;
  const [firstPart, ...otherParts] = first?.parts ?? [];
  if (snapshot === undefined || first === undefined || firstPart === undefined) return [...preserve];
  return [{ ...first, parts: [{ ...firstPart, codemodeStore: snapshot }, ...otherParts] }, ...others];
}

/**
 * Runs `memory.compact`; when it produced a summary, trims the store with `keepLastNUserTurns`
 * (writing only when something is dropped) and reports message counts; otherwise reports why
 * not, leaving the store untouched.
 */
export function applyCompaction<M extends StoredMessageLike>(
  options: ApplyCompactionOptions<M>,
): ApplyCompactionResult {
  const version = options.version ?? 'newest';
  const compaction = options.memory.compact(options.compactOptions);
  if (compaction.kind !== 'compacted') {
    const reason =
      compaction.kind === 'blocked'
        ? (compaction.reason ?? (version === 'newest' ? BLOCKED_WITHOUT_REASON : undefined))
        : NOTHING_TO_COMPACT;
    return {
      compacted: false,
      reason,
      tokensBefore: compaction.tokenCountBefore,
      tokensAfter: compaction.tokenCountAfter,
      messagesBefore: 0,
      messagesAfter: 0,
      compaction,
    };
  }
  const stored = options.store.getMessages();
  const preserve = keepLastNUserTurns(stored, options.preserveRecentTurns ?? DEFAULT_PRESERVE_RECENT_TURNS, version);
  if (preserve.length < stored.length) {
    options.store.replaceMessages(version === 'newest' ? carryCodemodeStore(stored, preserve) : preserve);
  }
  return {
    compacted: true,
    tokensBefore: compaction.tokenCountBefore,
    tokensAfter: compaction.tokenCountAfter,
    messagesBefore: stored.length,
    messagesAfter: preserve.length,
    compaction,
  };
}
