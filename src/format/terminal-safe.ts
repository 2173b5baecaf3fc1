/**
 * Text from logs (model names, paths, session ids, issue reasons) must not drive the terminal: an
 * ESC can retitle it or clear the screen, a BEL rings, a CR or LF forges lines. Every control
 * character (C0, DEL, C1) and the bidirectional overrides that can reorder what is shown are
 * replaced by a visible `\u{…}`-style escape. `terminalSafe` is for one value (a table cell, a
 * path, a reason: newlines are escaped too); `terminalSafeOutput` is the last guard on whole
 * output text, which keeps its own newlines and SGR colour sequences (`ESC [ … m`),
 * and escapes everything else.
 */

// C0 controls, DEL, C1 controls, and the Unicode bidi embedding/override/isolate marks.
/* eslint-disable no-control-regex -- matching control characters is this module's job */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OUTPUT = /\u001b\[[0-9;]*m|[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

function escape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** One value for the terminal: every control character, newlines included, becomes `\uXXXX`. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escape);
}

/** Whole output text: newlines and colour (SGR) sequences stay; every other control is escaped. */
export function terminalSafeOutput(text: string): string {
  return text.replace(UNSAFE_OUTPUT, (match) => (match.length > 1 ? match : escape(match)));
}
