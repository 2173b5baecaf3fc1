// Copies the non-TypeScript assets that the compiled CLI reads at run time (SQL reports) into dist/,
// and makes the `bin` executable: tsc writes files without the execute bit, and `npx cachecost` run
// in a fresh checkout executes `dist/cli/main.js` itself ("Permission denied" otherwise).
import { chmodSync, cpSync, existsSync } from 'node:fs';

for (const dir of ['src/cost/sql']) {
  if (existsSync(dir)) cpSync(dir, dir.replace(/^src\//, 'dist/'), { recursive: true });
}
if (existsSync('dist/cli/main.js')) chmodSync('dist/cli/main.js', 0o755);
