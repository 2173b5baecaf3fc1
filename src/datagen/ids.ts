/**
 * Identifiers in FreeCode's exact shapes, built from the simulated clock and the seeded stream:
 * the 20-character rollout ids (engine.md §6.2), `randomUUID`-shaped message and session ids,
 * `MemoryMessage` ids (§4.2) and provider tool-call ids.
 */
import type { Rng } from './rng.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const HEX = '0123456789abcdef';
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * FreeCode's home-grown "ULID" (§6.2): 10 Crockford base-32 characters of the epoch-ms time,
 * big-endian, then 10 characters each from one random byte `% 32`. 20 characters, not 26.
 */
export function rolloutEventId(timestampMs: number, rng: Rng): string {
  let time = timestampMs;
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = (CROCKFORD[time % 32] ?? '0') + head;
    time = Math.floor(time / 32);
  }
  let tail = '';
  for (let i = 0; i < 10; i++) tail += CROCKFORD[rng.int(0, 255) % 32] ?? '0';
  return head + tail;
}

/**
 * A version-4 UUID as `crypto.randomUUID()` prints it. A given `prefix` (hex digits, e.g. the
 * 8-hex id of a session in engine.md §9.2) replaces the first characters.
 */
export function uuidV4(rng: Rng, prefix = ''): string {
  let hex = '';
  for (let i = 0; i < 32; i++) hex += HEX[rng.int(0, 15)] ?? '0';
  hex = prefix.toLowerCase() + hex.slice(prefix.length);
  const version = `4${hex.slice(13, 16)}`;
  const variant = (HEX[8 + (Number.parseInt(hex[16] ?? '0', 16) % 4)] ?? '8') + hex.slice(17, 20);
  if (prefix.length > 12)
    throw new RangeError('uuidV4: a prefix longer than 12 hex digits would cross the version nibble');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${version}-${variant}-${hex.slice(20, 32)}`;
}

/** `"msg-" + Date.now() + "-" + Math.random().toString(36).slice(2)` (§4.2), with the stream in place of Math.random. */
export function memoryMessageId(timestampMs: number, rng: Rng): string {
  return `msg-${timestampMs}-${rng.chars(BASE36, rng.int(10, 11))}`;
}

/** The id `makeSummary` gives a compaction summary (§3.1). */
export function summaryId(sessionId: string, timestampMs: number): string {
  return `summary-${sessionId}-${timestampMs}`;
}

/** A provider's tool-call id (`toolu_…` for Anthropic-style endpoints, `call_…` for OpenAI-style ones). */
export function providerCallId(style: 'anthropic' | 'openai', rng: Rng): string {
  return style === 'anthropic' ? `toolu_01${rng.chars(BASE62, 22)}` : `call_${rng.chars(BASE62, 24)}`;
}
