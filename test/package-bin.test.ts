// `npm install && npx cachecost …` in a fresh checkout runs the built `bin` file itself: it must be
// executable and start with a node shebang. `prepare` builds dist/ on install, so CI always has it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
const bin = pkg.bin['cachecost'] ?? '';
const built = existsSync(bin);

describe('the package bin', () => {
  it('exists after npm ci (checked when CI=true; prepare builds it)', () => {
    if (process.env['CI'] === 'true') expect(built, `${bin} missing after npm ci`).toBe(true);
  });

  it.runIf(built)('is executable and starts with a node shebang', () => {
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });
});
