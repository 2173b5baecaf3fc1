/**
 * cli-table3's own helpers (`src/utils.js`, CommonJS), which its package does not declare: only
 * `strlen` is read (`table.ts`), and only if it is there.
 */
declare module 'cli-table3/src/utils.js' {
  const utils: { readonly strlen?: unknown };
  export default utils;
}
