/**
 * The simulated project a session works on: a monorepo tree whose files are generated on first
 * access and then edited and written by the session's tool calls, so that `read`, `edit`,
 * `grep`, `git diff` and test runs all see the same, evolving code.
 */
import { pythonModule, pythonTestModule } from './code-python.js';
import { codeSentence, typescriptModule, typescriptTestModule } from './code-typescript.js';
import { unifiedDiff } from './diff.js';
import { kebab, snake } from './names.js';
import type { Rng } from './rng.js';
import { fileText, type SourceFile, type SourceLanguage } from './source-file.js';
import { APP_NAMES, DOMAINS, FILE_ROLES, NOUNS } from './vocab.js';

export interface PackageInfo {
  readonly dir: string;
  readonly name: string;
  readonly language: 'ts' | 'py';
  readonly sources: string[];
  readonly tests: string[];
}

export interface RepoSpec {
  readonly projectPath: string;
  readonly scope: string;
  /** Share of Python packages, in percent. */
  readonly pythonPercent: number;
  readonly packageCount: number;
}

export class Repo {
  readonly projectPath: string;
  readonly packages: PackageInfo[] = [];
  private readonly rng: Rng;
  private readonly files = new Map<string, SourceFile>();
  private readonly original = new Map<string, string[] | null>();
  private readonly skeleton = new Set<string>();

  constructor(spec: RepoSpec, rng: Rng) {
    this.projectPath = spec.projectPath;
    this.rng = rng;
    const domains = rng.sample(DOMAINS, spec.packageCount);
    for (const [i, domain] of domains.entries()) {
      const isApp = i % 3 === 2;
      const language: 'ts' | 'py' = rng.chance(spec.pythonPercent) ? 'py' : 'ts';
      const dir = isApp ? `apps/${rng.pick(APP_NAMES)}-${domain}` : `packages/${domain}`;
      const name = `${spec.scope}/${dir.split('/')[1] ?? domain}`;
      const sources: string[] = [];
      const tests: string[] = [];
      const roles = rng.sample(FILE_ROLES, rng.int(5, 11));
      const module = snake((dir.split('/')[1] ?? domain).split('-'));
      for (const role of roles) {
        const sub = rng.chance(30) ? `${rng.pick(NOUNS)}/` : '';
        if (language === 'ts') {
          sources.push(`${dir}/src/${sub}${kebab(role.split('-'))}.ts`);
          if (rng.chance(55)) tests.push(`${dir}/test/${sub}${kebab(role.split('-'))}.test.ts`);
        } else {
          sources.push(`${dir}/${module}/${sub.replace('/', '')}${sub === '' ? '' : '_'}${role}.py`);
          if (rng.chance(55)) tests.push(`${dir}/tests/test_${role}.py`);
        }
      }
      if (tests.length === 0)
        tests.push(
          language === 'ts'
            ? `${dir}/test/${roles[0] ?? 'index'}.test.ts`
            : `${dir}/tests/test_${roles[0] ?? 'core'}.py`,
        );
      this.packages.push({ dir, name, language, sources, tests });
      for (const p of [...sources, ...tests]) this.skeleton.add(p);
      this.skeleton.add(language === 'ts' ? `${dir}/package.json` : `${dir}/pyproject.toml`);
      if (language === 'ts') this.skeleton.add(`${dir}/tsconfig.json`);
      this.skeleton.add(`${dir}/README.md`);
    }
    for (const doc of rng.sample(
      ['architecture', 'runbook', 'contributing', 'adr-0007-retries', 'adr-0012-ledger', 'api', 'testing'],
      4,
    ))
      this.skeleton.add(`docs/${doc}.md`);
    for (const root of [
      'package.json',
      'pnpm-workspace.yaml',
      'tsconfig.base.json',
      'README.md',
      '.github/workflows/ci.yml',
    ])
      this.skeleton.add(root);
  }

  /** Every path of the tree, sorted. */
  paths(): string[] {
    return [...this.skeleton].sort();
  }

  has(path: string): boolean {
    return this.skeleton.has(path);
  }

  /** The file at `path`, generated on first access (`sizeHintLines` sizes a new source file). */
  file(path: string, sizeHintLines?: number): SourceFile {
    const existing = this.files.get(path);
    if (existing !== undefined) return existing;
    const created = this.generate(path, sizeHintLines ?? this.rng.skewed(40, 420));
    this.files.set(path, created);
    this.original.set(path, [...created.lines]);
    this.skeleton.add(path);
    return created;
  }

  /** Files generated so far (what `grep` can find). */
  loadedFiles(): SourceFile[] {
    return [...this.files.values()];
  }

  /** Replaces a file's content (the `write` tool); a new path becomes an added file. */
  writeFile(
    path: string,
    lines: string[],
    language: SourceLanguage,
    role: SourceFile['role'],
    symbols: string[],
  ): SourceFile {
    let file = this.files.get(path);
    // A path that exists in the tree is generated first so that the diff shows a modification.
    if (file === undefined && this.skeleton.has(path)) file = this.file(path);
    if (file === undefined) {
      file = { path, language, role, lines: [], symbols, tests: [] };
      this.original.set(path, null);
    }
    file.lines = lines;
    this.files.set(path, file);
    this.skeleton.add(path);
    return file;
  }

  /** `git diff` for every changed file, in path order. */
  diff(paths?: readonly string[]): string {
    const out: string[] = [];
    const targets = (paths ?? [...this.files.keys()]).filter((p) => this.files.has(p)).sort();
    for (const path of targets) {
      const file = this.files.get(path);
      if (file === undefined) continue;
      const before = this.original.get(path) ?? null;
      const text = unifiedDiff(
        path,
        before ?? [],
        file.lines,
        before === null,
        `index ${this.rng.chars('0123456789abcdef', 7)}..${this.rng.chars('0123456789abcdef', 7)}${before === null ? '' : ' 100644'}`,
      );
      if (text !== '') out.push(text);
    }
    return out.join('\n');
  }

  /** Paths changed since the session started (`git status --short`). */
  changedPaths(): { path: string; added: boolean }[] {
    const out: { path: string; added: boolean }[] = [];
    for (const [path, file] of this.files) {
      const before = this.original.get(path) ?? null;
      if (before === null) out.push({ path, added: true });
      else if (before.length !== file.lines.length || before.some((line, i) => line !== file.lines[i]))
        out.push({ path, added: false });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private generate(path: string, lines: number): SourceFile {
    const rng = this.rng;
    if (path.endsWith('.md'))
      return { path, language: 'md', role: 'doc', lines: markdownDoc(rng, path, lines), symbols: [], tests: [] };
    if (path.endsWith('.json') || path.endsWith('.yaml') || path.endsWith('.yml') || path.endsWith('.toml')) {
      return { path, language: 'json', role: 'config', lines: configFile(rng, path), symbols: [], tests: [] };
    }
    const pkg = this.packages.find((p) => path.startsWith(`${p.dir}/`));
    if (path.endsWith('.test.ts')) {
      const subjectPath =
        pkg?.sources.find((s) => s.endsWith(`/${path.split('/').pop()?.replace('.test.ts', '.ts') ?? ''}`)) ??
        pkg?.sources[0];
      const subject = subjectPath === undefined ? undefined : this.file(subjectPath);
      const from =
        subjectPath === undefined
          ? '../src/index.js'
          : `../src/${subjectPath.split('/src/')[1]?.replace(/\.ts$/, '.js') ?? 'index.js'}`;
      return typescriptTestModule(rng, path, from, subject?.symbols ?? [], Math.max(30, Math.floor(lines * 0.7)));
    }
    if (path.endsWith('.py') && path.split('/').pop()?.startsWith('test_') === true) {
      const role =
        path
          .split('/')
          .pop()
          ?.replace(/^test_/, '')
          .replace(/\.py$/, '') ?? '';
      const subjectPath = pkg?.sources.find((s) => s.endsWith(`${role}.py`)) ?? pkg?.sources[0];
      const subject = subjectPath === undefined ? undefined : this.file(subjectPath);
      const module = (subjectPath ?? 'pkg/core.py').split('/').slice(-2).join('.').replace(/\.py$/, '');
      return pythonTestModule(rng, path, module, subject?.symbols ?? [], Math.max(25, Math.floor(lines * 0.6)));
    }
    if (path.endsWith('.py')) return pythonModule(rng, path, lines);
    const siblings = (pkg?.sources ?? []).filter((s) => s !== path && this.files.has(s));
    const imports = rng
      .sample(siblings, rng.int(0, 2))
      .map((s) => {
        const f = this.files.get(s);
        const rel = `./${s.split('/src/')[1]?.replace(/\.ts$/, '.js') ?? 'index.js'}`;
        return { from: rel, names: rng.sample(f?.symbols ?? [], rng.int(1, 2)) };
      })
      .filter((imp) => imp.names.length > 0);
    return typescriptModule(rng, path, lines, imports);
  }
}

function markdownDoc(rng: Rng, path: string, lines: number): string[] {
  const title = (path.split('/').pop() ?? 'doc').replace(/\.md$/, '').replace(/-/g, ' ');
  const out = [`# ${title.charAt(0).toUpperCase()}${title.slice(1)}`, ''];
  while (out.length < Math.min(lines, 120)) {
    out.push(
      `## ${rng.pick(NOUNS)} ${rng.pick(['lifecycle', 'ownership', 'limits', 'failure modes', 'rollout', 'retries'])}`,
      '',
    );
    for (let i = rng.int(1, 3); i > 0; i--) out.push(`${codeSentence(rng)} ${codeSentence(rng)}`, '');
    if (rng.chance(40)) out.push(`- ${codeSentence(rng)}`, `- ${codeSentence(rng)}`, '');
  }
  return out;
}

function configFile(rng: Rng, path: string): string[] {
  if (path.endsWith('package.json')) {
    return JSON.stringify(
      {
        name: path.includes('/') ? `@${rng.pick(NOUNS)}/${path.split('/')[1] ?? 'pkg'}` : 'monorepo',
        version: `${rng.int(0, 3)}.${rng.int(0, 40)}.${rng.int(0, 20)}`,
        private: true,
        type: 'module',
        scripts: { build: 'tsc -p tsconfig.json', test: 'vitest run', lint: 'eslint src' },
        dependencies: Object.fromEntries(
          rng
            .sample(['zod', 'pino', 'undici', 'p-limit', 'date-fns', 'kysely', 'ioredis'], rng.int(1, 4))
            .map((d) => [d, `^${rng.int(1, 9)}.${rng.int(0, 30)}.${rng.int(0, 9)}`]),
        ),
      },
      null,
      2,
    ).split('\n');
  }
  if (path.endsWith('.toml'))
    return [
      '[project]',
      `name = "${rng.pick(NOUNS)}-${rng.pick(NOUNS)}"`,
      `version = "0.${rng.int(1, 30)}.${rng.int(0, 9)}"`,
      'requires-python = ">=3.11"',
      '',
      '[tool.pytest.ini_options]',
      'testpaths = ["tests"]',
    ];
  if (path.endsWith('ci.yml'))
    return [
      'name: ci',
      'on: [push, pull_request]',
      'jobs:',
      '  test:',
      '    runs-on: ubuntu-latest',
      '    steps:',
      '      - uses: actions/checkout@v4',
      '      - uses: pnpm/action-setup@v4',
      '      - run: pnpm install --frozen-lockfile',
      '      - run: pnpm -r test',
    ];
  if (path.endsWith('.yaml')) return ['packages:', "  - 'apps/*'", "  - 'packages/*'"];
  return JSON.stringify(
    { extends: '../../tsconfig.base.json', compilerOptions: { outDir: 'dist', rootDir: 'src' }, include: ['src'] },
    null,
    2,
  ).split('\n');
}

/** `read`'s rendering: `<line number>\t<line>` per line (engine.md §12.2), from `offset` (1-based) for `limit` lines. */
export function numberedLines(file: SourceFile, offset: number, limit: number): string {
  const slice = file.lines.slice(offset - 1, offset - 1 + limit);
  return `${slice.map((line, i) => `${offset + i}\t${line}`).join('\n')}\n`;
}

export { fileText };
