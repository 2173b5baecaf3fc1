/** Test helper: run the CLI from the TypeScript sources in a child process (for kill and no-network tests). */
import { type ChildProcess, spawn } from 'node:child_process';

const TS_HOOKS = new URL('../tune/support/register-ts-worker-hooks.mjs', import.meta.url).pathname;
const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;

export type Finished = {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
};

/** Starts `cachecost <args>` with optional extra `--import` preloads; resolves when it exits. */
export function startCli(
  args: readonly string[],
  preloads: readonly string[] = [],
): { child: ChildProcess; done: Promise<Finished> } {
  const execArgs = [...preloads.flatMap((p) => ['--import', p]), '--import', TS_HOOKS, MAIN, ...args];
  const child = spawn(process.execPath, execArgs, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Finished>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}
