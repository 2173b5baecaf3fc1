import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/ingest/detect-format.js';
import { discoverSessions } from '../../src/ingest/index.js';
import { defaultLocations, pathsOrDefault } from '../../src/cli/default-paths.js';
import type { CliIo } from '../../src/cli/io.js';
import { CachecostError } from '../../src/session/errors.js';

const io = (env: Record<string, string>): CliIo => ({ stdout: () => {}, stderr: () => {}, env, homeDir: '/home/me' });

describe('format detection and dispatch', () => {
  it('finds every format under one directory', async () => {
    const { sources } = await discoverSessions(['test/fixtures']);
    const formats = new Set(sources.map((s) => s.format));
    expect([...formats].sort()).toEqual(['claude-code', 'codex', 'freecode', 'opencode', 'openhands', 'swe-agent']);
  });

  it('rejects a file given by name that no format claims', async () => {
    await expect(discoverSessions(['package.json'])).rejects.toBeInstanceOf(CachecostError);
  });
});

describe('default locations', () => {
  it('lists FreeCode, Claude Code (both homes), Codex sessions and archive, opencode storage', () => {
    expect(defaultLocations(io({}))).toEqual([
      '/home/me/.freecode',
      '/home/me/.claude/projects',
      '/home/me/.config/claude/projects',
      '/home/me/.codex/sessions',
      '/home/me/.codex/archived_sessions',
      '/home/me/.local/share/opencode/storage',
    ]);
  });

  it('honours CLAUDE_CONFIG_DIR as a comma list, CODEX_HOME, XDG_DATA_HOME and FREECODE_HOME', () => {
    expect(
      defaultLocations(io({ CLAUDE_CONFIG_DIR: '/a, /b', CODEX_HOME: '/c', XDG_DATA_HOME: '/d', FREECODE_HOME: '/f' })),
    ).toEqual(['/f', '/a/projects', '/b/projects', '/c/sessions', '/c/archived_sessions', '/d/opencode/storage']);
  });

  it('keeps only the locations that exist, and the FreeCode home when none does', () => {
    expect(pathsOrDefault(undefined, io({}), (p) => p.includes('.codex'))).toEqual([
      '/home/me/.codex/sessions',
      '/home/me/.codex/archived_sessions',
    ]);
    // Nothing exists: one error naming every place searched.
    expect(() => pathsOrDefault([], io({}), () => false)).toThrow(
      'no logs found: none of the default locations exists (/home/me/.freecode, /home/me/.claude/projects, /home/me/.config/claude/projects, /home/me/.codex/sessions, /home/me/.codex/archived_sessions, /home/me/.local/share/opencode/storage); give a path',
    );
    expect(pathsOrDefault(['x'], io({}), () => false)).toEqual(['x']);
  });
});

describe('a damaged first line', () => {
  const claudeLine = JSON.stringify({
    type: 'user',
    sessionId: 's1',
    uuid: 'u1',
    message: { role: 'user', content: 'hi' },
  });

  async function detectText(text: string): Promise<string | null> {
    const dir = mkdtempSync(join(tmpdir(), 'cachecost-detect-'));
    try {
      const path = join(dir, 'session.jsonl');
      writeFileSync(path, text);
      return (await detectFormat(path))?.format ?? null;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('does not hide the file: the next lines of the bounded head say the format', async () => {
    expect(await detectText(`${claudeLine}\n`)).toBe('claude-code');
    expect(await detectText(`{"type":"user","sessionId":"s1",\n${claudeLine}\n`)).toBe('claude-code');
    expect(await detectText(`\uFEFF[1,2]\n\n${claudeLine}\n`)).toBe('claude-code');
    // A long damaged first line (beyond the 64 KB first read) still falls back to the lines after it.
    expect(await detectText(`{"x":"${'a'.repeat(70_000)}\n${claudeLine}\n`)).toBe('claude-code');
  });

  it('reads a first line of any length up to the bounded head, across each read size (4 KB, 64 KB, 256 KB)', async () => {
    for (const length of [10, 4_000, 4_096, 4_200, 65_530, 65_536, 70_000, 200_000]) {
      const long = JSON.stringify({
        type: 'user',
        sessionId: 's1',
        uuid: 'u1',
        message: { role: 'user', content: 'x'.repeat(length) },
      });
      // Alone in its file (no newline: the whole prefix), and followed by another line.
      expect(await detectText(long)).toBe('claude-code');
      expect(await detectText(`${long}\n${claudeLine}\n`)).toBe('claude-code');
      // A damaged first line of the same length falls back to the next line.
      expect(await detectText(`{"x":"${'a'.repeat(length)}\n${claudeLine}\n`)).toBe('claude-code');
    }
  });

  it('claims nothing when no line of the head is a known record', async () => {
    expect(await detectText('not json\n{"hello":1}\n')).toBeNull();
    expect(await detectText('not json at all')).toBeNull();
  });
});

describe('a Claude Code subagent transcript', () => {
  it('is claimed by its place even when no first line is readable, so each broken line is one issue', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cachecost-detect-'));
    try {
      const subagents = join(dir, 'S1', 'subagents');
      mkdirSync(subagents, { recursive: true });
      const damaged = '[]\n{"type":"assistant","sessionId":\n';
      writeFileSync(join(subagents, 'agent-a1.jsonl'), damaged);
      writeFileSync(join(dir, 'agent-a1.jsonl'), damaged);
      expect((await detectFormat(join(subagents, 'agent-a1.jsonl')))?.format).toBe('claude-code');
      // The same text anywhere else is not a log.
      expect(await detectFormat(join(dir, 'agent-a1.jsonl'))).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
