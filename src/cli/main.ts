#!/usr/bin/env node
/** The `cachecost` binary: wires `process` into the CLI and sets the exit code (never calls exit while output is pending). */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // `cachecost sessions --json | head`: the reader went away; stop quietly.
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === '--version') {
  // The answer needs no parser: printed before yargs and the commands are loaded (they cost ~2× node's own start).
  const raw: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  process.stdout.write(
    `${typeof raw === 'object' && raw !== null && 'version' in raw && typeof raw.version === 'string' ? raw.version : 'unknown'}\n`,
  );
} else {
  const [{ hideBin }, { runCli }] = await Promise.all([import('yargs/helpers'), import('./app.js')]);
  const code = await runCli(hideBin(process.argv), {
    stdout: (text) => {
      process.stdout.write(text);
    },
    stderr: (text) => {
      process.stderr.write(text);
    },
    env: process.env,
    homeDir: homedir(),
    stdoutColumns: process.stdout.isTTY ? process.stdout.columns : undefined,
    stdoutIsTTY: process.stdout.isTTY,
  });
  process.exitCode = code;
  // The command is done: once its output is flushed the process exits at once. Left to end by
  // itself, it would first run the tasks V8 queued meanwhile (a warm report was measured starting
  // a full garbage collection right after its output: ~20 ms of its wall time, for nothing).
  // Written synchronously (a file, a pipe or a terminal on Linux), nothing is left pending: waiting
  // for a write callback would cost an event loop turn (~2 ms of a warm report) for nothing.
  if (!settled(process.stdout) || !settled(process.stderr))
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

/** Whether everything written to `stream` so far has been handed to the system (no write is pending). */
function settled(stream: NodeJS.WriteStream): boolean {
  return stream.writableLength === 0 && !stream.writableNeedDrain;
}

/** Resolves once everything written to `stream` so far is handed to the system (or the stream failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}
