/**
 * Word wrapping for notes and evidence in the terminal: lines break at spaces, a word longer than
 * the width (a path, a UUID) is cut only when it cannot fit on a line of its own.
 */

/** Where to cut a word longer than `room`: after the last `-`, `/`, `_` or `.` that fits, else at `room`. */
function breakPoint(word: string, room: number): number {
  for (let i = room; i > room / 2; i -= 1) if ('-/_.'.includes(word[i - 1] ?? '')) return i;
  return room;
}

/** Splits `text` into lines of at most `width` characters, breaking at spaces; `indent` prefixes continuation lines. */
export function wrapWords(text: string, width: number | null, indent = ''): string[] {
  if (width === null || text.length <= width) return [text];
  const room = Math.max(8, width);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const prefix = lines.length === 0 ? '' : indent;
    const candidate = line === '' ? `${prefix}${word}` : `${line} ${word}`;
    if (candidate.length <= room) {
      line = candidate;
      continue;
    }
    if (line !== '' && line !== prefix) lines.push(line);
    let rest = `${lines.length === 0 ? '' : indent}${word}`;
    while (rest.length > room) {
      const cut = breakPoint(rest, room);
      lines.push(rest.slice(0, cut));
      rest = `${indent}${rest.slice(cut)}`;
    }
    line = rest;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** `wrapWords` joined with newlines; every input line is wrapped on its own. */
export function wrapText(text: string, width: number | null, indent = ''): string {
  return text
    .split('\n')
    .map((line) => wrapWords(line, width, indent).join('\n'))
    .join('\n');
}
