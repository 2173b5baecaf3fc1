/** A file of the simulated repository: its lines and the names other content refers to. */
export type SourceLanguage = 'ts' | 'py' | 'md' | 'json';

export interface SourceFile {
  readonly path: string;
  readonly language: SourceLanguage;
  readonly role: 'source' | 'test' | 'doc' | 'config';
  lines: string[];
  /** Exported functions/classes a grep, a test or a stack trace can name. */
  readonly symbols: string[];
  /** Test titles, grouped by `describe`, for test files. */
  readonly tests: { readonly suite: string; readonly titles: string[] }[];
}

/** The file's text as `read` or `cat` shows it. */
export function fileText(file: SourceFile): string {
  return file.lines.join('\n');
}
