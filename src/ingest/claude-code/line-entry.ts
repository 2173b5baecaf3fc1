/**
 * One Claude Code line's outcome as the parse cache stores it and as parse workers hand it over:
 * the record (null for blank/invalid/ignored lines) and its problem. Kept apart from `index.ts` so
 * that a parse worker loads only the line parser, not the session builder and the run pack.
 */
import type { ContentMode } from '../content-mode.js';
import type { LineParser } from '../parse-cache.js';
import { storedEntryCodec } from './entry-codec.js';
import { type ClaudeLineResult, type ClaudeRecord, parseClaudeLine, parseClaudeRawLine } from './record.js';

/**
 * One line's outcome, as cached: the record (null for blank/invalid/ignored lines) and its problem,
 * `repaired` when the record was read despite it (an invalid line is not read at all).
 */
export type LineEntry = {
  readonly line: number;
  readonly record: ClaudeRecord | null;
  readonly problem: string | null;
  readonly repaired: boolean;
};

function lineEntry(number: number, result: ClaudeLineResult): LineEntry | null {
  if (result.kind === 'record') {
    const record = result.record.kind === 'ignored' ? null : result.record;
    return record === null && result.problem === null
      ? null
      : { line: number, record, problem: result.problem, repaired: true };
  }
  return result.kind === 'invalid' ? { line: number, record: null, problem: result.reason, repaired: false } : null;
}

/** The parser of Claude Code lines in `content` mode (its `key` names the cache entries it writes). */
export function lineParser(content: ContentMode): LineParser<LineEntry> {
  return {
    key: `claude-code/${content}/2`,
    parse: (line) => lineEntry(line.number, parseClaudeLine(line, content)),
    // `usage` mode reads lines from their bytes, decoding only what it parses.
    parseRaw: content === 'usage' ? (line) => lineEntry(line.number, parseClaudeRawLine(line, content)) : undefined,
    codec: storedEntryCodec,
  };
}
