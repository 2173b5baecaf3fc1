/** Test helper: run the CLI in-process with captured output, exactly as the binary wires it. */
import { runCli } from '../../src/cli/app.js';

export type CliResult = { readonly code: number; readonly stdout: string; readonly stderr: string };

export async function cli(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
  homeDir = '/nonexistent-home',
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
    homeDir,
  });
  return { code, stdout, stderr };
}
