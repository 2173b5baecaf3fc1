/**
 * Hostile inputs and outputs, one test per way they used to break a run: huge token counts, deep
 * nesting, terminal escapes, BOMs, binary and garbage files, symbolic links, FIFOs, output paths.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverSessions, loadSession } from '../../src/ingest/index.js';
import { terminalSafe, terminalSafeOutput } from '../../src/format/terminal-safe.js';
import { cli } from '../cli/run.js';

const root = mkdtempSync(join(tmpdir(), 'cachecost-hostile-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
function freshDir(name: string): string {
  counter += 1;
  const dir = join(root, `${name}-${counter}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A Claude Code transcript of `n` responses (formats.md §1.3); `edit` may change response i's line. */
function claudeTranscript(
  n: number,
  edit: (i: number, line: Record<string, unknown>) => string | null = () => null,
): string {
  const lines = [
    JSON.stringify({
      type: 'user',
      uuid: 'u0',
      parentUuid: null,
      sessionId: 'H1',
      cwd: '/w',
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { role: 'user', content: 'go' },
    }),
  ];
  for (let i = 0; i < n; i++) {
    const line = {
      type: 'assistant',
      uuid: `a${i}`,
      parentUuid: i === 0 ? 'u0' : `a${i - 1}`,
      sessionId: 'H1',
      timestamp: `2026-01-01T00:00:${String(i + 1).padStart(2, '0')}.000Z`,
      requestId: `req_${i}`,
      message: {
        id: `msg_${i}`,
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: 'ls' } }],
        usage: { input_tokens: 10, cache_read_input_tokens: 1000, cache_creation_input_tokens: 5, output_tokens: 20 },
      },
    };
    lines.push(edit(i, line) ?? JSON.stringify(line));
  }
  return `${lines.join('\n')}\n`;
}

function writeClaude(dir: string, text: string, id = 'H1'): string {
  const project = join(dir, 'projects', '-w');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, `${id}.jsonl`), text);
  return dir;
}

async function sessionsOf(path: string): Promise<{ requests: number; withUsage: number; issues: string[] }> {
  const { sources, issues } = await discoverSessions([path]);
  let requests = 0;
  let withUsage = 0;
  const reasons = issues.map((issue) => issue.reason);
  for (const source of sources) {
    const session = await loadSession(source, { content: 'sizes' });
    requests += session.requests.length;
    withUsage += session.requests.filter((r) => r.usage !== null).length;
    reasons.push(...session.issues.map((issue) => issue.reason));
  }
  return { requests, withUsage, issues: reasons };
}

// eslint-disable-next-line no-control-regex -- the raw control characters a guard must have escaped
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('huge token counts (1)', () => {
  it('1e308 and 2^53+1 are "usage invalid" issues: no crash, the request kept unpriced, --strict exits 2', async () => {
    const dir = writeClaude(
      freshDir('huge'),
      claudeTranscript(4, (i, line) => {
        if (i === 1) return JSON.stringify(line).replace('"output_tokens":20', '"output_tokens":1e308');
        if (i === 2) return JSON.stringify(line).replace('"input_tokens":10', '"input_tokens":9007199254740993');
        return null;
      }),
    );
    const read = await sessionsOf(dir);
    expect(read).toMatchObject({ requests: 4, withUsage: 2 });
    expect(read.issues.filter((reason) => reason.startsWith('usage invalid'))).toHaveLength(2);
    for (const command of [['sessions'], ['report'], ['simulate', '--target', '120000'], ['flags']]) {
      const result = await cli([...command, dir]);
      expect(result.code, `${command[0] ?? ''}: ${result.stderr}`).toBe(0);
      expect(result.stdout).not.toContain('Infinity');
      const strict = await cli([...command, '--strict', dir]);
      expect(strict.code, strict.stderr).toBe(2);
    }
  }, 300_000);
});

describe('deep nesting (2)', () => {
  it('a tool input nested 5,000 levels costs its own line only: 20 of 21 requests remain', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const dir = writeClaude(
      freshDir('deep'),
      claudeTranscript(21, (i, line) => (i === 7 ? JSON.stringify(line).replace('{"command":"ls"}', deep) : null)),
    );
    const read = await sessionsOf(dir);
    expect(read.requests).toBe(20);
    expect(read.issues).toEqual(['value nested deeper than 1000 levels']);
  });
});

describe('terminal escapes (4)', () => {
  it('escapes every control character in one value and keeps only newlines and colour in output', () => {
    expect(terminalSafe('a\u001b]0;x\u0007b\r\nc\u009b')).toBe('a\\u001b]0;x\\u0007b\\u000d\\u000ac\\u009b');
    expect(terminalSafeOutput('row\tcell\n\u001b[31mred\u001b[0m \u001b[2J\r')).toBe(
      'row\\u0009cell\n\u001b[31mred\u001b[0m \\u001b[2J\\u000d',
    );
  });

  it('a model name and a file name with ESC, BEL, CR and LF reach no terminal raw', async () => {
    const evil = 'claude\u001b]0;owned\u0007\r\nFAKE LINE\u001b[2J';
    const dir = writeClaude(
      freshDir('escape'),
      claudeTranscript(2, (i, line) => (i === 0 ? JSON.stringify(line).replace('claude-sonnet-4-5', evil) : null)),
    );
    // A log file whose name holds an escape and a newline, with one bad line to be listed.
    writeFileSync(
      join(dir, 'projects', '-w', 'bad\u001b[2J\nname.jsonl'),
      `${readFileSync(join(dir, 'projects', '-w', 'H1.jsonl'), 'utf8').replaceAll('"H1"', '"H2"')}{oops\n`,
    );
    for (const command of [
      ['sessions', '--verbose'],
      ['report', '--verbose'],
      ['simulate', '--verbose', '--target', '120000'],
      ['flags', '--verbose'],
    ]) {
      const result = await cli([...command, dir]);
      expect(result.code, result.stderr).toBe(0);
      expect(RAW_CONTROL.test(result.stdout), `${command[0] ?? ''} stdout`).toBe(false);
      expect(RAW_CONTROL.test(result.stderr), `${command[0] ?? ''} stderr`).toBe(false);
      expect(`${result.stdout}${result.stderr}`.split('\n').some((line) => line.startsWith('FAKE LINE'))).toBe(false);
    }
  }, 300_000);
});

describe('byte order marks (5)', () => {
  it('an opencode message file and a SWE-agent trajectory starting with a BOM are read', async () => {
    const dir = freshDir('bom');
    cpSync('test/fixtures/opencode', join(dir, 'opencode'), { recursive: true });
    const message = join(dir, 'opencode', 'storage', 'message', 'ses_1', 'msg_2.json');
    writeFileSync(message, `\uFEFF${readFileSync(message, 'utf8')}`);
    writeFileSync(join(dir, 'run.traj'), `\uFEFF${readFileSync('test/fixtures/swe-agent/good.traj', 'utf8')}`);
    const clean = await sessionsOf('test/fixtures/opencode');
    const read = await sessionsOf(dir);
    expect(read.issues).toEqual(clean.issues);
    expect(read.requests).toBe(clean.requests);
    const { sources } = await discoverSessions([join(dir, 'run.traj')]);
    const traj = sources[0] === undefined ? null : await loadSession(sources[0], { content: 'sizes' });
    expect(traj?.issues).toEqual([]);
    expect(traj?.totalsOnly).toEqual({ promptTokens: 12000, outputTokens: 300, requests: 4 });
  });
});

describe('silent drops (6)', () => {
  it('a binary file with a log name is an issue, and --strict exits 2', async () => {
    const dir = freshDir('binary');
    const bytes = Buffer.alloc(1 << 20);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
    writeFileSync(join(dir, 'session.jsonl'), bytes);
    writeFileSync(join(dir, 'trajectory.json'), bytes);
    const read = await sessionsOf(dir);
    expect(read.issues).toEqual([
      'binary content (not UTF-8 text) in a file named like a log; not read',
      'binary content (not UTF-8 text) in a file named like a log; not read',
    ]);
    expect((await cli(['sessions', '--strict', dir])).code).toBe(2);
  });

  it('garbage lines in an OpenHands output.jsonl are issues, not phantom sessions', async () => {
    const dir = freshDir('openhands');
    const good = readFileSync('test/fixtures/openhands/eval/output.jsonl', 'utf8').trim().split('\n');
    writeFileSync(
      join(dir, 'output.jsonl'),
      [good[0], '{"instance_id": "x", "garb', '[1,2,3]', '42', good[1], '\u0000\u0001binary'].join('\n'),
    );
    const { sources, issues } = await discoverSessions([dir]);
    expect(sources).toHaveLength(2);
    expect(issues.map((issue) => issue.line)).toEqual([2, 3, 4, 6]);
  });

  it('a symlinked subdirectory is followed, and a link back to an ancestor does not loop', async () => {
    const dir = freshDir('links');
    const elsewhere = writeClaude(freshDir('elsewhere'), claudeTranscript(3));
    writeClaude(dir, claudeTranscript(2).replaceAll('"H1"', '"H0"'), 'H0');
    symlinkSync(join(elsewhere, 'projects', '-w'), join(dir, 'projects', 'linked'));
    symlinkSync(dir, join(dir, 'projects', 'loop'));
    const read = await sessionsOf(dir);
    expect(read.requests).toBe(5);
    const { sources } = await discoverSessions([dir]);
    expect(sources.map((s) => s.sessionId).sort()).toEqual(['H0', 'H1']);
  });
});

describe('hangs (7)', () => {
  it('a FIFO given as a path, or met inside a folder, is refused at once', async () => {
    const dir = freshDir('fifo');
    const fifo = join(dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const given = await cli(['sessions', fifo]);
    expect(given.code).toBe(1);
    expect(given.stderr).toMatch(/^cachecost: cannot read .*pipe\.jsonl: a FIFO \(named pipe\), not a log file\n$/);
    const walked = await sessionsOf(dir);
    expect(walked.issues).toEqual(['not a regular file (a FIFO, socket or device); skipped']);
    const pricing = await cli(['report', '--pricing', fifo, 'test/fixtures/claude-code']);
    expect(pricing.code).toBe(1);
    expect(pricing.stderr).toContain('not a regular file');
  });

  it('--csv under /proc fails with one line instead of spinning', async () => {
    const result = await cli([
      'simulate',
      '--target',
      '120000',
      '--csv',
      '/proc/cachecost-x',
      'test/fixtures/freecode/home-newest',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^cachecost: cannot create directory \/proc\/cachecost-x: [^\n]*\n$/);
  });
});

describe('output paths (8)', () => {
  it('a missing output directory is named in the error, never the temporary file', async () => {
    const target = join(root, 'no-such-dir', 'report.html');
    const result = await cli([
      'simulate',
      '--target',
      '120000',
      '--html',
      target,
      'test/fixtures/freecode/home-newest',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot write ${target}: directory ${join(root, 'no-such-dir')} does not exist`);
    expect(result.stderr).not.toContain('.tmp');
  });

  it('removes temporary files a killed run left, and writes through a symlinked output', async () => {
    const dir = freshDir('out');
    const csv = join(dir, 'csv');
    mkdirSync(csv);
    // pid 2^22+1 is above Linux's pid_max: no such process can be alive.
    writeFileSync(join(csv, '.requests.csv.4194305.0123abcd.tmp'), 'x'.repeat(1000));
    writeFileSync(join(dir, 'real.html'), 'old');
    symlinkSync(join(dir, 'real.html'), join(dir, 'link.html'));
    const result = await cli([
      'simulate',
      '--target',
      '120000',
      '--csv',
      csv,
      '--html',
      join(dir, 'link.html'),
      'test/fixtures/freecode/home-newest',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(csv).sort()).toEqual(['compactions.csv', 'requests.csv', 'scenarios.csv', 'sessions.csv']);
    expect(lstatSync(join(dir, 'link.html')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real.html'), 'utf8')).toContain('<html');
    expect(existsSync(join(dir, 'link.html'))).toBe(true);
  });

  it('a failed run keeps the previous --db file as it was', async () => {
    const dir = freshDir('db');
    const db = join(dir, 'costs.duckdb');
    expect((await cli(['simulate', '--target', '120000', '--db', db, 'test/fixtures/freecode/home-newest'])).code).toBe(
      0,
    );
    const before = readFileSync(db);
    // --csv into a path that cannot be created fails after the tables were filled.
    const failed = await cli([
      'simulate',
      '--target',
      '80000',
      '--db',
      db,
      '--csv',
      '/proc/cachecost-y',
      'test/fixtures/freecode/home-newest',
    ]);
    expect(failed.code).toBe(1);
    expect(readFileSync(db).equals(before)).toBe(true);
    expect(readdirSync(dir)).toEqual(['costs.duckdb']);
  });
});
