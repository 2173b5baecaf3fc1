/**
 * The JSON step shared by every JSONL adapter: one line → a JSON value, a blank line, or the
 * reason it is unreadable. A malformed last line without `\n` is reported as a truncation
 * (the writer died mid-append), any other malformed line as malformed JSON.
 */
import { errorMessage } from '../session/errors.js';
import type { z } from 'zod';
import type { Line } from './lines.js';

export type JsonLineResult =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'blank' }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Parses one line as JSON; blank lines are not an error (FreeCode's own readers skip them). */
export function parseJsonLine(line: Line): JsonLineResult {
  if (line.text.trim() === '') return { kind: 'blank' };
  try {
    return { kind: 'json', value: JSON.parse(line.text) };
  } catch (error) {
    if (!line.terminated) return { kind: 'invalid', reason: 'truncated last line' };
    const detail = errorMessage(error);
    return { kind: 'invalid', reason: `malformed JSON (${detail})` };
  }
}

/** One-line reason for a schema failure: the first problem, naming the field (`missing field "turnId"`). */
export function describeSchemaError(context: string, error: z.ZodError): string {
  const first = error.issues[0];
  if (first === undefined) return `${context}: invalid`;
  const field = first.path.map(String).join('.');
  if (field === '') return `${context}: ${first.message}`;
  if (first.code === 'invalid_type' && first.message.endsWith('received undefined')) {
    return `${context}: missing field "${field}"`;
  }
  return `${context}: invalid field "${field}" (${first.message})`;
}

/**
 * Parses a whole JSON document (opencode's storage files, SWE-agent and OpenHands trajectories):
 * a leading UTF-8 byte order mark, which editors and some Windows tools write, is not JSON and is
 * dropped first. Throws `SyntaxError` as `JSON.parse` does.
 */
export function parseJsonDocument(text: string): unknown {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}
