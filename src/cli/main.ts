#!/usr/bin/env node
/** The `cachecost` binary: wires `process` into the CLI and sets the exit code (never calls exit while output is pending). */
import { homedir } from 'node:os';
import { hideBin } from 'yargs/helpers';
import { runCli } from './app.js';

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // `cachecost sessions --json | head`: the reader went away; stop quietly.
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await runCli(hideBin(process.argv), {
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
