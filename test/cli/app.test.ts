import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../../src/cli/app.js';
import { COMMANDS } from '../../src/cli/commands/registry.js';
import { cli } from './run.js';

describe('the cachecost CLI', () => {
  it('--version prints the package version', async () => {
    const { version } = z.object({ version: z.string() }).parse(JSON.parse(readFileSync('package.json', 'utf8')));
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('--help lists the commands and global options; a command help has examples', async () => {
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('cachecost sessions [paths..]');
    expect(top.stdout).toContain('--strict');
    const sessions = await cli(['sessions', '--help']);
    expect(sessions.stdout).toContain('Examples:');
    expect(sessions.stdout).toContain('cachecost sessions datasets/freecode');
    expect(sessions.stdout).toContain('--csv');
  });

  it('every help text is printable ASCII, which the help layout measures without loading string-width', async () => {
    // scripts/string-width-lazy.mjs: another character makes `--help` load string-width (≈ 50 ms).
    for (const argv of [['--help'], ...COMMANDS.map((command) => [command.name, '--help'])]) {
      const { code, stdout } = await cli(argv);
      expect(code).toBe(0);
      const lines = stdout.split('\n');
      expect(lines.filter((line) => !/^[\x20-\x7e]*$/.test(line))).toEqual([]);
    }
  });

  it('rejects unknown options in one line (strict parsing), exit 1', async () => {
    expect(await cli(['sessions', '--jsn'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'cachecost: Unknown argument: jsn (see cachecost --help)\n',
    });
    expect((await cli(['sessions', '--csv'])).code).toBe(1);
  });

  it('shows the help on stderr and exits 1 without a command', async () => {
    const { code, stdout, stderr } = await cli([]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('cachecost sessions');
  });

  it('maps an unexpected exception to one line and exit 70; --verbose adds the stack', async () => {
    let stderr = '';
    const io = {
      stdout: () => {
        throw new Error('stdout is gone');
      },
      stderr: (text: string) => {
        stderr += text;
      },
      env: {},
      homeDir: '/nowhere',
    };
    expect(await runCli(['sessions', 'test/fixtures/freecode/home-newest', '--json'], io)).toBe(70);
    expect(stderr).toBe('cachecost: internal error: stdout is gone\n');
    stderr = '';
    expect(await runCli(['sessions', 'test/fixtures/freecode/home-newest', '--json', '--verbose'], io)).toBe(70);
    expect(stderr.split('\n')[0]).toBe('cachecost: internal error: stdout is gone');
    expect(stderr).toContain('at ');
  });
});

describe('usage errors are one line', () => {
  it('folds a multi-line yargs message (invalid choice) into one line, exit 1', async () => {
    let stderr = '';
    const code = await runCli(['simulate', '--ttl', '2h', '/nonexistent'], {
      stdout: () => undefined,
      stderr: (t) => {
        stderr += t;
      },
      env: {},
      homeDir: '/nonexistent-home',
    });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/Invalid values: Argument: ttl, Given: "2h"/);
  });
});
