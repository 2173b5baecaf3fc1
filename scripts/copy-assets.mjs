// Copies the non-TypeScript assets that the compiled CLI reads at run time (SQL reports) into dist/.
import { cpSync, existsSync } from 'node:fs';

for (const dir of ['src/cost/sql']) {
  if (existsSync(dir)) cpSync(dir, dir.replace(/^src\//, 'dist/'), { recursive: true });
}
