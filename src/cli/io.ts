/**
 * The CLI's view of the outside world, injected so that tests run the real parser and handlers
 * with captured output and a chosen environment. Only `main.ts` builds it from `process`.
 */
export type CliIo = {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Environment variables (read only here, in `src/cli`, and passed down as arguments). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
  /** stdout's width in columns when it is a terminal (main.ts reads `process.stdout.columns`). */
  readonly stdoutColumns?: number | undefined;
  /** Whether stdout is a terminal (colour's default). */
  readonly stdoutIsTTY?: boolean | undefined;
};
