/** Byte-level damage for differential properties of line readers: insert, replace, delete, truncate. */
export type ByteMutation = { readonly at: number; readonly op: string; readonly byte: number };

/** `bytes` after each step in turn; `at` is taken modulo the current length, so every step applies. */
export function mutate(bytes: Buffer, steps: readonly ByteMutation[]): Buffer {
  let out = [...bytes];
  for (const { at, op, byte } of steps) {
    const i = out.length === 0 ? 0 : at % (out.length + (op === 'insert' ? 1 : 0));
    if (op === 'insert') out.splice(i, 0, byte);
    else if (op === 'replace' && out.length > 0) out[i] = byte;
    else if (op === 'delete') out.splice(i, 1);
    else if (op === 'truncate') out = out.slice(0, i);
  }
  return Buffer.from(out);
}
