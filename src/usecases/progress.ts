/** How a long use case reports progress (the CLI draws a bar on a terminal; a library caller may ignore it). */
export type Progress = {
  /** Called once the work is counted (sessions found, or replays to run). */
  start(total: number): void;
  /** Called after each unit of work. */
  increment(): void;
};
