/** Every CLI command, in the order `--help` lists them. Add a command: one file here, one line below. */
import type { CliCommand } from '../command.js';
import { exportCommand } from './export.js';
import { flagsCommand } from './flags.js';
import { reportCommand } from './report.js';
import { sessionsCommand } from './sessions.js';
import { simulateCommand } from './simulate.js';
import { tuneCommand } from './tune.js';

export const COMMANDS: readonly CliCommand[] = [
  sessionsCommand,
  simulateCommand,
  tuneCommand,
  flagsCommand,
  reportCommand,
  exportCommand,
];
