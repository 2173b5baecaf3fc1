/**
 * A progress bar for long runs (cli-progress), on stderr and only when stderr is a terminal:
 * never in pipes, files, CI logs or tests, so output bytes stay the same everywhere.
 */
export type Progress = { start(total: number): void; increment(): void; stop(): void };

/** A bar labelled `<command> … <value>/<total> <unit>`, or null when stderr is not a terminal. */
export async function progressBar(command: string, unit: string): Promise<Progress | null> {
  if (process.stderr.isTTY !== true) return null;
  const { SingleBar } = await import('cli-progress');
  const bar = new SingleBar({
    stream: process.stderr,
    format: `${command} {bar} {percentage}% | {value}/{total} ${unit} | ETA {eta_formatted}`,
    hideCursor: true,
    clearOnComplete: true,
  });
  let started = false;
  return {
    start: (total) => {
      started = true;
      bar.start(total, 0);
    },
    increment: () => bar.increment(),
    stop: () => {
      if (started) bar.stop();
    },
  };
}
