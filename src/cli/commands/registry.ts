/** Every CLI command, in the order `--help` lists them. Add a command: one file here, one line below. */
import type { CliCommand } from '../command.js';
import { sessionsCommand } from './sessions.js';
import { simulateCommand } from './simulate.js';

export const COMMANDS: readonly CliCommand[] = [sessionsCommand, simulateCommand];
