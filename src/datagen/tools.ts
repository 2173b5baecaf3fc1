/**
 * FreeCode tool calls with realistic arguments and outputs, played against the simulated
 * repository: `read`, `write`, `edit`, `bash`, `grep`, `glob`, `ls`, `todowrite`. Each call says
 * how long it ran, so the session clock advances the way a real run does.
 */
import { pythonModule, pythonStatements, pythonTestModule } from './code-python.js';
import { typescriptModule, typescriptStatements, typescriptTestModule } from './code-typescript.js';
import { plural } from './english.js';
import { numberedLines, type PackageInfo, type Repo } from './repo.js';
import type { Rng } from './rng.js';
import { serviceLog } from './service-log.js';
import type { TaskContext } from './task.js';
import { pytestRun, tscOutput, vitestRun } from './test-output.js';
import { camel } from './names.js';
import { ADJECTIVES, NOUNS, VERBS } from './vocab.js';

export type ToolName = 'read' | 'write' | 'edit' | 'bash' | 'grep' | 'glob' | 'ls' | 'todowrite';

export interface ToolInvocation {
  readonly name: ToolName;
  /** Arguments in the key order the model emitted them (`JSON.stringify` keeps it). */
  readonly args: Record<string, unknown>;
  /** What the model sees: the output, or the error text when the call failed. */
  readonly result: string;
  readonly failed: boolean;
  readonly durationMs: number;
  /** A short label for the assistant's intent line (`packages/x/src/y.ts`, `pnpm test`). */
  readonly target: string;
  /** Test counts when the call ran tests. */
  readonly tests?: { readonly passed: number; readonly failed: number };
}

export interface ToolContext {
  readonly rng: Rng;
  readonly repo: Repo;
  readonly task: TaskContext;
  readonly nowMs: number;
  /** Desired size of the call's variable part (result, or written code), in characters. */
  readonly sizeHintChars: number;
}

function taskPackage(ctx: ToolContext): PackageInfo {
  return ctx.repo.packages.find((p) => p.dir === ctx.task.packageDir) ?? ctx.rng.pick(ctx.repo.packages);
}

function avgLineChars(language: 'ts' | 'py'): number {
  return language === 'ts' ? 34 : 30;
}

function readCall(ctx: ToolContext): ToolInvocation {
  const { rng, repo, task } = ctx;
  const pkg = taskPackage(ctx);
  const candidates = [...task.files, ...task.testFiles, ...pkg.sources];
  const path = rng.chance(80) ? rng.pick(candidates) : rng.pick(repo.paths());
  const lineHint = Math.max(20, Math.round(ctx.sizeHintChars / (avgLineChars(task.language) + 5)));
  const file = repo.file(path, lineHint);
  const totalChars = file.lines.reduce((sum, l) => sum + l.length + 6, 0);
  let offset = 1;
  let limit = file.lines.length;
  const args: Record<string, unknown> = { filePath: path };
  if (totalChars > ctx.sizeHintChars * 1.6 && file.lines.length > 40) {
    limit = Math.max(20, Math.min(file.lines.length, lineHint));
    offset = rng.int(1, Math.max(1, file.lines.length - limit + 1));
    args['offset'] = offset;
    args['limit'] = limit;
  }
  return {
    name: 'read',
    args,
    result: numberedLines(file, offset, limit),
    failed: false,
    durationMs: rng.int(2, 60),
    target: path,
  };
}

function grepCall(ctx: ToolContext): ToolInvocation {
  const { rng, repo, task } = ctx;
  const pattern = rng.chance(70) ? rng.pick(task.symbols) : rng.pick([...NOUNS]);
  const pkg = taskPackage(ctx);
  // Make sure a few files of the package are loaded so that the search finds real lines.
  for (const p of rng.sample(pkg.sources, rng.int(1, 3))) repo.file(p);
  const scoped = rng.chance(50);
  const matches: string[] = [];
  let chars = 0;
  for (const file of repo.loadedFiles()) {
    if (scoped && !file.path.startsWith(`${pkg.dir}/`)) continue;
    file.lines.forEach((line, i) => {
      if (line.includes(pattern) && chars < ctx.sizeHintChars * 2) {
        const row = `${file.path}:${i + 1}:${line.trim()}`;
        matches.push(row);
        chars += row.length + 1;
      }
    });
  }
  const args: Record<string, unknown> = { pattern };
  if (scoped) args['path'] = pkg.dir;
  if (rng.chance(30)) args['include'] = task.language === 'ts' ? '*.ts' : '*.py';
  const result = matches.length === 0 ? 'No files found' : `Found ${matches.length} matches\n${matches.join('\n')}`;
  return { name: 'grep', args, result, failed: false, durationMs: rng.int(15, 480), target: pattern };
}

function globCall(ctx: ToolContext): ToolInvocation {
  const { rng, repo, task } = ctx;
  const ext = task.language === 'ts' ? (rng.chance(30) ? '**/*.test.ts' : '**/*.ts') : '**/*.py';
  const root = rng.chance(70) ? task.packageDir : rng.pick(['packages', 'apps', task.packageDir]);
  const suffix = ext.replace('**/*', '');
  const paths = repo.paths().filter((p) => p.startsWith(`${root}/`) && p.endsWith(suffix));
  return {
    name: 'glob',
    args: { pattern: `${root}/${ext}` },
    result: paths.length === 0 ? 'No files found' : paths.map((p) => `${repo.projectPath}/${p}`).join('\n'),
    failed: false,
    durationMs: rng.int(8, 220),
    target: `${root}/${ext}`,
  };
}

function lsCall(ctx: ToolContext): ToolInvocation {
  const { rng, repo, task } = ctx;
  const root = rng.chance(75) ? task.packageDir : rng.pick(['packages', 'apps', 'docs', task.packageDir]);
  const paths = repo.paths().filter((p) => p.startsWith(`${root}/`));
  const lines = [`${repo.projectPath}/${root}/`];
  let lastDirs: string[] = [];
  for (const p of paths) {
    const parts = p.slice(root.length + 1).split('/');
    const dirs = parts.slice(0, -1);
    dirs.forEach((d, i) => {
      if (lastDirs[i] !== d) {
        lines.push(`${'  '.repeat(i + 1)}${d}/`);
        lastDirs = [...dirs.slice(0, i), d];
      }
    });
    lastDirs = dirs;
    lines.push(`${'  '.repeat(dirs.length + 1)}${parts[parts.length - 1] ?? ''}`);
  }
  return {
    name: 'ls',
    args: { path: root },
    result: `${lines.join('\n')}\n`,
    failed: false,
    durationMs: rng.int(3, 60),
    target: root,
  };
}

function generatedLines(ctx: ToolContext, path: string, lines: number): { lines: string[]; symbols: string[] } {
  const { rng, task } = ctx;
  if (path.endsWith('.test.ts')) {
    const f = typescriptTestModule(
      rng,
      path,
      `../src/${path.split('/').pop()?.replace('.test.ts', '.js') ?? 'index.js'}`,
      task.symbols,
      lines,
    );
    return { lines: f.lines, symbols: [] };
  }
  if (path.endsWith('.py') && (path.split('/').pop() ?? '').startsWith('test_')) {
    const f = pythonTestModule(
      rng,
      path,
      path.split('/').slice(-2).join('.').replace(/\.py$/, ''),
      task.symbols,
      lines,
    );
    return { lines: f.lines, symbols: [] };
  }
  const f = path.endsWith('.py') ? pythonModule(rng, path, lines) : typescriptModule(rng, path, lines, []);
  return { lines: f.lines, symbols: f.symbols };
}

function writeCall(ctx: ToolContext): ToolInvocation {
  const { rng, repo, task } = ctx;
  const pkg = taskPackage(ctx);
  const lines = Math.max(8, Math.round(ctx.sizeHintChars / avgLineChars(task.language)));
  let path: string;
  if (rng.chance(45)) path = rng.pick([...task.files, ...task.testFiles]);
  else if (task.language === 'ts') path = `${pkg.dir}/src/${rng.pick(ADJECTIVES)}-${rng.pick(NOUNS)}.ts`;
  else
    path = `${pkg.dir}/${(pkg.dir.split('/')[1] ?? 'pkg').replace(/-/g, '_')}/${rng.pick(ADJECTIVES)}_${rng.pick(NOUNS)}.py`;
  const content = generatedLines(ctx, path, lines);
  repo.writeFile(path, content.lines, task.language, path.includes('test') ? 'test' : 'source', content.symbols);
  // Like the edit tool, write reports the language server's diagnostics for the package when there are any.
  const diagnostics =
    task.language === 'ts' && rng.chance(45) ? tscOutput(rng, repo, taskPackage(ctx), rng.int(2, 14)) : '';
  const result =
    diagnostics === ''
      ? 'Wrote file successfully.'
      : `Wrote file successfully.\n\nLSP errors detected in this package, please fix:\n<diagnostics>\n${diagnostics}\n</diagnostics>`;
  return {
    name: 'write',
    args: { filePath: path, content: content.lines.join('\n') },
    result,
    failed: false,
    durationMs: rng.int(4, 45),
    target: path,
  };
}

function editCall(ctx: ToolContext): ToolInvocation {
  const { rng, repo, task } = ctx;
  const path = rng.pick([...task.files, ...(rng.chance(30) ? task.testFiles : [])]);
  const file = repo.file(path);
  // A small change replaces a line or two; a big one rewrites a block.
  const blockLines = Math.max(
    1,
    Math.min(file.lines.length, rng.int(1, Math.min(14, 2 + Math.floor(ctx.sizeHintChars / 250)))),
  );
  const start = rng.int(0, Math.max(0, file.lines.length - blockLines));
  const oldLines = file.lines.slice(start, start + blockLines);
  const addLines = Math.max(1, Math.round(ctx.sizeHintChars / avgLineChars(task.language)) - blockLines);
  const indent = (oldLines[0] ?? '').match(/^\s*/)?.[0] ?? '';
  const fresh = path.endsWith('.py')
    ? pythonStatements(rng, indent, addLines)
    : typescriptStatements(rng, indent, addLines);
  const newLines = oldLines.map((l) =>
    rng.chance(25)
      ? l.replace(/\b(\w+)\b(?=\()/, (m) => `${m}${rng.pick(['Safe', 'Strict', 'Once', 'Batch', 'V2'])}`)
      : l,
  );
  const insertAt = rng.int(0, newLines.length);
  newLines.splice(insertAt, 0, ...fresh.slice(0, addLines));
  const oldString = oldLines.join('\n');
  const newString = newLines.join('\n');
  const args = { filePath: path, oldString, newString };
  if (oldString.trim() === '' || rng.chance(4)) {
    const error = rng.pick([
      `Error: oldString not found in content of ${path}`,
      `Error: Found multiple matches for oldString in ${path}. Provide more surrounding lines to make the match unique.`,
      `Error: File ${path} has been modified since it was last read. Read it again before editing.`,
    ]);
    return { name: 'edit', args, result: error, failed: true, durationMs: rng.int(2, 20), target: path };
  }
  file.lines.splice(start, blockLines, ...newLines);
  // The tool echoes the edited region with line numbers so the model can check the result.
  const from = Math.max(1, start + 1 - 4);
  const shown = Math.min(newLines.length + 8, 40, file.lines.length - from + 1);
  const snippet = numberedLines(file, from, shown);
  const result = `Edit applied successfully to ${path}.\n\nHere is the updated region (lines ${from}-${from + shown - 1}):\n${snippet}`;
  return { name: 'edit', args, result, failed: false, durationMs: rng.int(3, 40), target: path };
}

function todoCall(ctx: ToolContext): ToolInvocation {
  const { rng, task } = ctx;
  const todos = Array.from({ length: rng.int(3, 7) }, (_, i) => ({
    content: `${rng.pick(VERBS).replace(/^./, (c) => c.toUpperCase())} ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} in ${rng.pick(task.files)}`,
    status: i === 0 ? 'completed' : i === 1 ? 'in_progress' : 'pending',
    priority: rng.pick(['high', 'medium', 'low']),
    id: String(i + 1),
  }));
  return {
    name: 'todowrite',
    args: { todos },
    result: JSON.stringify(todos, null, 2),
    failed: false,
    durationMs: rng.int(1, 9),
    target: 'todos',
  };
}

const LINT_RULES: readonly (readonly [string, string])[] = [
  ["'{x}' is assigned a value but never used", '@typescript-eslint/no-unused-vars'],
  ['Unexpected any. Specify a different type', '@typescript-eslint/no-explicit-any'],
  ['Missing return type on function', '@typescript-eslint/explicit-function-return-type'],
  ["'{x}' is never reassigned. Use 'const' instead", 'prefer-const'],
  [
    'Promises must be awaited, end with a call to .catch, or end with a call to .then with a rejection handler',
    '@typescript-eslint/no-floating-promises',
  ],
  ['Unsafe member access .{x} on an `any` value', '@typescript-eslint/no-unsafe-member-access'],
];

type BashKind = 'test' | 'tsc' | 'git-status' | 'git-diff' | 'git-log' | 'rg' | 'lint' | 'install';

function bashCall(ctx: ToolContext, preferred?: BashKind): ToolInvocation {
  const { rng, repo, task } = ctx;
  const pkg = taskPackage(ctx);
  const kind: BashKind =
    preferred ??
    rng.weighted<BashKind>([
      ['test', 42],
      ['tsc', 14],
      ['git-status', 10],
      ['git-diff', 12],
      ['git-log', 5],
      ['rg', 9],
      ['lint', 5],
      ['install', 3],
    ]);
  switch (kind) {
    case 'test': {
      const failPercent = rng.pick([0, 0, 3, 8, 15]);
      if (pkg.language === 'py') {
        const run = pytestRun(rng, repo, pkg, failPercent);
        const command = `cd ${pkg.dir} && python -m pytest${rng.chance(40) ? ' -q' : ''}${rng.chance(30) ? ` -k ${rng.pick(task.symbols)}` : ''}`;
        return {
          name: 'bash',
          args: { command, description: 'Run the package tests' },
          result: run.output,
          failed: false,
          durationMs: run.durationMs,
          target: command,
          tests: { passed: run.passed, failed: run.failed },
        };
      }
      const verbose = ctx.sizeHintChars > 6000 && rng.chance(60);
      const run = vitestRun(rng, repo, pkg, ctx.nowMs, failPercent, verbose);
      const command = `pnpm --filter ${pkg.name} test${verbose ? ' -- --reporter=verbose' : ''}`;
      return {
        name: 'bash',
        args: { command, description: `Run ${pkg.name} tests` },
        result: run.output,
        failed: false,
        durationMs: run.durationMs,
        target: command,
        tests: { passed: run.passed, failed: run.failed },
      };
    }
    case 'tsc': {
      const command =
        pkg.language === 'ts'
          ? `pnpm --filter ${pkg.name} exec tsc --noEmit`
          : `cd ${pkg.dir} && mypy ${(pkg.dir.split('/')[1] ?? 'pkg').replace(/-/g, '_')}`;
      const errors = rng.weighted<number>([
        [0, 50],
        [1, 20],
        [2, 12],
        [4, 10],
        [9, 8],
      ]);
      const out =
        pkg.language === 'ts'
          ? tscOutput(rng, repo, pkg, errors)
          : errors === 0
            ? `Success: no issues found in ${pkg.sources.length} source files`
            : `Found ${errors} errors in ${Math.min(errors, 2)} files (checked ${pkg.sources.length} source files)`;
      return {
        name: 'bash',
        args: { command, description: 'Typecheck' },
        result: out === '' ? '(no output)' : out,
        failed: false,
        durationMs: rng.int(2500, 19000),
        target: command,
      };
    }
    case 'git-status': {
      const changed = repo.changedPaths();
      const out =
        changed.length === 0
          ? `On branch ${rng.pick(['main', 'fix/', 'feat/'])}${rng.pick(NOUNS)}\nnothing to commit, working tree clean`
          : changed.map((c) => `${c.added ? '??' : ' M'} ${c.path}`).join('\n');
      return {
        name: 'bash',
        args: { command: 'git status --short', description: 'Show changed files' },
        result: out,
        failed: false,
        durationMs: rng.int(15, 160),
        target: 'git status',
      };
    }
    case 'git-diff': {
      const changed = repo.changedPaths().map((c) => c.path);
      const paths = changed.length > 0 ? rng.sample(changed, rng.int(1, Math.min(3, changed.length))) : [];
      const out = repo.diff(paths);
      const command = `git diff ${paths.join(' ')}`.trim();
      return {
        name: 'bash',
        args: { command, description: 'Show the diff' },
        result: out === '' ? '(no output)' : out,
        failed: false,
        durationMs: rng.int(20, 240),
        target: command,
      };
    }
    case 'git-log': {
      const count = rng.int(5, 15);
      const lines = Array.from(
        { length: count },
        () =>
          `${rng.chars('0123456789abcdef', 7)} ${rng.pick(['fix', 'feat', 'chore', 'refactor', 'test'])}(${pkg.dir.split('/')[1] ?? 'core'}): ${rng.pick(VERBS)} ${rng.pick(ADJECTIVES)} ${plural(rng.pick(NOUNS))}`,
      );
      return {
        name: 'bash',
        args: { command: `git log --oneline -n ${count}`, description: 'Recent commits' },
        result: lines.join('\n'),
        failed: false,
        durationMs: rng.int(20, 120),
        target: 'git log',
      };
    }
    case 'rg': {
      const g = grepCall(ctx);
      const pattern = String(g.args['pattern']);
      const out = g.result === 'No files found' ? '' : g.result.split('\n').slice(1).join('\n');
      return {
        name: 'bash',
        args: { command: `rg -n "${pattern}" ${pkg.dir}`, description: `Search for ${pattern}` },
        result: out === '' ? '(no output)' : out,
        failed: false,
        durationMs: rng.int(20, 300),
        target: `rg ${pattern}`,
      };
    }
    case 'lint': {
      const problems = rng.int(0, 6);
      const lines: string[] = [];
      let errors = 0;
      for (let i = 0; i < problems; i++) {
        const [message, rule] = rng.pick(LINT_RULES);
        const severity = rng.chance(60) ? 'error' : 'warning';
        if (severity === 'error') errors++;
        const name = camel([rng.pick(ADJECTIVES), rng.pick(NOUNS)]);
        lines.push(
          `${repo.projectPath}/${rng.pick(pkg.sources)}\n  ${rng.int(1, 300)}:${rng.int(1, 40)}  ${severity}  ${message.replace('{x}', name)}  ${rule}`,
        );
      }
      if (problems > 0)
        lines.push(
          '',
          `✖ ${problems} problem${problems === 1 ? '' : 's'} (${errors} error${errors === 1 ? '' : 's'}, ${problems - errors} warning${problems - errors === 1 ? '' : 's'})`,
        );
      return {
        name: 'bash',
        args: { command: `pnpm --filter ${pkg.name} lint`, description: 'Lint' },
        result: lines.length === 0 ? '(no output)' : lines.join('\n'),
        failed: false,
        durationMs: rng.int(1500, 9000),
        target: 'pnpm lint',
      };
    }
    case 'install': {
      const out = [
        `Scope: all ${repo.packages.length + 1} workspace projects`,
        `Lockfile is up to date, resolution step is skipped`,
        `Packages: +${rng.int(0, 40)}`,
        `Progress: resolved ${rng.int(400, 1400)}, reused ${rng.int(400, 1400)}, downloaded ${rng.int(0, 30)}, added ${rng.int(0, 40)}, done`,
        `Done in ${(rng.int(10, 200) / 10).toFixed(1)}s`,
      ];
      return {
        name: 'bash',
        args: { command: 'pnpm install', description: 'Install dependencies' },
        result: out.join('\n'),
        failed: false,
        durationMs: rng.int(2000, 20000),
        target: 'pnpm install',
      };
    }
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

/** One tool call of the given kind. */
export function invokeTool(name: ToolName, ctx: ToolContext): ToolInvocation {
  switch (name) {
    case 'read':
      return readCall(ctx);
    case 'write':
      return writeCall(ctx);
    case 'edit':
      return editCall(ctx);
    case 'bash':
      return bashCall(ctx);
    case 'grep':
      return grepCall(ctx);
    case 'glob':
      return globCall(ctx);
    case 'ls':
      return lsCall(ctx);
    case 'todowrite':
      return todoCall(ctx);
    default: {
      const unreachable: never = name;
      return unreachable;
    }
  }
}

/** A test run of the task's package (the usual last step of a run). */
export function runTests(ctx: ToolContext): ToolInvocation {
  return bashCall(ctx, 'test');
}

/** `cat` of a service log: the huge result of the overflow scenario (`targetChars` of output). */
export function catServiceLog(
  ctx: ToolContext,
  logPath: string,
  targetChars: number,
  logStartMs: number,
): ToolInvocation {
  const pkg = taskPackage(ctx);
  const output = serviceLog(ctx.rng, ctx.repo, pkg, logStartMs, targetChars);
  return {
    name: 'bash',
    args: { command: `cat ${logPath}`, description: 'Show the nightly worker log' },
    result: output,
    failed: false,
    durationMs: ctx.rng.int(300, 1200),
    target: `cat ${logPath}`,
  };
}
