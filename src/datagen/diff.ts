/**
 * Unified diffs as `git diff` prints them, from a line-level shortest edit script (Myers' greedy
 * algorithm). Used for `git diff` outputs in the simulated sessions.
 */

type Op = { readonly kind: 'same' | 'del' | 'add'; readonly line: string };

/** The shortest edit script from `a` to `b` as a list of kept, deleted and added lines. */
export function lineEditScript(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0))) x = v[offset + k + 1] ?? 0;
      else x = (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Walk the trace backwards to recover the script.
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d];
    if (vd === undefined) break;
    const k = x - y;
    let prevK: number;
    if (k === -d || (k !== d && (vd[offset + k - 1] ?? 0) < (vd[offset + k + 1] ?? 0))) prevK = k + 1;
    else prevK = k - 1;
    const prevX = vd[offset + prevK] ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: 'same', line: a[x - 1] ?? '' });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) ops.push({ kind: 'add', line: b[y - 1] ?? '' });
      else ops.push({ kind: 'del', line: a[x - 1] ?? '' });
    }
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

/** `git diff` output for one file (empty string when nothing changed), with 3 lines of context. */
export function unifiedDiff(
  path: string,
  before: readonly string[],
  after: readonly string[],
  isNew: boolean,
  indexLine: string,
): string {
  const ops = lineEditScript(before, after);
  if (!ops.some((op) => op.kind !== 'same')) return '';
  const out: string[] = [`diff --git a/${path} b/${path}`];
  if (isNew) out.push('new file mode 100644');
  out.push(indexLine, isNew ? '--- /dev/null' : `--- a/${path}`, `+++ b/${path}`);
  const context = 3;
  let i = 0;
  let aLine = 1;
  let bLine = 1;
  const positions = ops.map((op) => {
    const at = { a: aLine, b: bLine };
    if (op.kind !== 'add') aLine++;
    if (op.kind !== 'del') bLine++;
    return at;
  });
  while (i < ops.length) {
    while (i < ops.length && ops[i]?.kind === 'same') i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let lastChange = i;
    let j = i;
    while (j < ops.length) {
      if (ops[j]?.kind !== 'same') lastChange = j;
      else if (j - lastChange > 2 * context) break;
      j++;
    }
    const end = Math.min(ops.length, lastChange + context + 1);
    const hunk = ops.slice(start, end);
    const first = positions[start] ?? { a: 1, b: 1 };
    const aCount = hunk.filter((op) => op.kind !== 'add').length;
    const bCount = hunk.filter((op) => op.kind !== 'del').length;
    out.push(
      `@@ -${aCount === 0 ? first.a - 1 : first.a},${aCount} +${bCount === 0 ? first.b - 1 : first.b},${bCount} @@`,
    );
    for (const op of hunk) out.push(`${op.kind === 'same' ? ' ' : op.kind === 'del' ? '-' : '+'}${op.line}`);
    i = end;
  }
  return out.join('\n');
}
