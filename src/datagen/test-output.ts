/**
 * What test runners and compilers print: vitest and pytest runs over the repository's real test
 * files (with failures, assertion diffs and code frames), `tsc` diagnostics and stack traces.
 */
import { camel } from './names.js';
import type { PackageInfo, Repo } from './repo.js';
import type { Rng } from './rng.js';
import type { SourceFile } from './source-file.js';
import { ADJECTIVES, NOUNS } from './vocab.js';

export interface TestRunOutput {
  readonly output: string;
  readonly passed: number;
  readonly failed: number;
  readonly durationMs: number;
}

function clock(startMs: number): string {
  const d = new Date(startMs);
  return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}:${String(d.getUTCSeconds()).padStart(2, '0')}`;
}

/** A Node stack trace through the repository's functions. */
export function nodeStackTrace(rng: Rng, repo: Repo, pkg: PackageInfo, message: string): string {
  const lines = [
    `${rng.pick(['Error', 'TypeError', 'RangeError', `${camel([rng.pick(NOUNS)]).replace(/^./, (c) => c.toUpperCase())}Error`])}: ${message}`,
  ];
  const frames = rng.int(3, 9);
  for (let i = 0; i < frames; i++) {
    const path = rng.pick(pkg.sources);
    const file = repo.file(path);
    const fn = file.symbols.length > 0 ? rng.pick(file.symbols) : 'anonymous';
    const line = rng.int(1, Math.max(1, file.lines.length));
    const built = rng.chance(40);
    const framePath = built ? path.replace('/src/', '/dist/').replace(/\.ts$/, '.js') : path;
    lines.push(
      `    at ${i > 0 && rng.chance(50) ? 'async ' : ''}${fn} (${repo.projectPath}/${framePath}:${line}:${rng.int(3, 40)})`,
    );
  }
  if (rng.chance(50)) lines.push(`    at async Promise.all (index ${rng.int(0, 7)})`);
  if (rng.chance(40)) lines.push('    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)');
  return lines.join('\n');
}

/** A Python traceback through the repository's functions. */
export function pythonTraceback(rng: Rng, repo: Repo, pkg: PackageInfo, message: string): string {
  const lines = ['Traceback (most recent call last):'];
  for (let i = rng.int(2, 6); i > 0; i--) {
    const path = rng.pick(pkg.sources);
    const file = repo.file(path);
    const lineNo = rng.int(1, Math.max(1, file.lines.length));
    lines.push(
      `  File "${repo.projectPath}/${path}", line ${lineNo}, in ${file.symbols.length > 0 ? rng.pick(file.symbols) : '<module>'}`,
    );
    lines.push(`    ${(file.lines[lineNo - 1] ?? 'pass').trim()}`);
  }
  lines.push(`${rng.pick(['ValueError', 'KeyError', 'RuntimeError', 'AssertionError', 'TimeoutError'])}: ${message}`);
  return lines.join('\n');
}

const MAX_FAILURE_BLOCKS = 5;

function vitestFailureBlock(rng: Rng, file: SourceFile, suite: string, title: string): string {
  const expected = rng.pick([String(rng.int(0, 900)), `'${rng.pick(ADJECTIVES)}'`, 'true', `[ '${rng.pick(NOUNS)}' ]`]);
  const received = rng.pick([String(rng.int(0, 900)), `'${rng.pick(ADJECTIVES)}'`, 'false', 'undefined', '[]']);
  const lineNo = rng.int(5, Math.max(6, file.lines.length));
  const frame: string[] = [];
  for (let l = Math.max(1, lineNo - 2); l <= Math.min(file.lines.length, lineNo + 1); l++) {
    frame.push(`    ${String(l).padStart(3, ' ')}| ${file.lines[l - 1] ?? ''}`);
    if (l === lineNo) frame.push(`       | ${' '.repeat(rng.int(4, 30))}^`);
  }
  return [
    ` FAIL  ${file.path.split('/').slice(2).join('/')} > ${suite} > ${title}`,
    `AssertionError: expected ${received} to ${rng.pick(['be', 'deeply equal'])} ${expected} // Object.is equality`,
    '',
    '- Expected',
    '+ Received',
    '',
    `- ${expected}`,
    `+ ${received}`,
    '',
    ` ❯ ${file.path.split('/').slice(2).join('/')}:${lineNo}:${rng.int(5, 40)}`,
    ...frame,
    '',
  ].join('\n');
}

/** A `vitest run` over a TypeScript package; `failPercent` of the tests fail. */
export function vitestRun(
  rng: Rng,
  repo: Repo,
  pkg: PackageInfo,
  atMs: number,
  failPercent: number,
  verbose: boolean,
): TestRunOutput {
  const lines = [` RUN  v${rng.pick(['2.1.8', '3.0.5', '3.2.4'])} ${repo.projectPath}/${pkg.dir}`, ''];
  let passed = 0;
  let failed = 0;
  let failedFiles = 0;
  const failures: string[] = [];
  for (const path of pkg.tests) {
    const file = repo.file(path);
    const rel = path.split('/').slice(2).join('/');
    const results: { suite: string; title: string; ok: boolean; ms: number }[] = [];
    for (const suite of file.tests)
      for (const title of suite.titles)
        results.push({ suite: suite.suite, title, ok: !rng.chance(failPercent), ms: rng.skewed(1, 400) });
    const fileFailed = results.filter((r) => !r.ok).length;
    const totalMs = results.reduce((sum, r) => sum + r.ms, 0);
    passed += results.length - fileFailed;
    failed += fileFailed;
    if (fileFailed > 0) failedFiles++;
    lines.push(
      ` ${fileFailed > 0 ? '❯' : '✓'} ${rel} (${results.length} tests${fileFailed > 0 ? ` | ${fileFailed} failed` : ''}) ${totalMs}ms`,
    );
    if (fileFailed > 0 || verbose) {
      for (const r of results) lines.push(`   ${r.ok ? '✓' : '×'} ${r.suite} > ${r.title} ${r.ms}ms`);
    }
    for (const r of results) if (!r.ok) failures.push(vitestFailureBlock(rng, file, r.suite, r.title));
  }
  if (failures.length > 0) {
    lines.push('', `⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failures.length} ⎯⎯⎯⎯⎯⎯⎯`, '');
    // Detailed blocks for the first failures only, as with `--bail`-style local runs.
    failures
      .slice(0, MAX_FAILURE_BLOCKS)
      .forEach((block, i) =>
        lines.push(block, `⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[${i + 1}/${failures.length}]⎯`, ''),
      );
    if (failures.length > MAX_FAILURE_BLOCKS)
      lines.push(`... ${failures.length - MAX_FAILURE_BLOCKS} more failures (run with --reporter=verbose for all)`, '');
  }
  const durationMs = rng.int(900, 9000) + (passed + failed) * rng.int(5, 40);
  const files = pkg.tests.length;
  lines.push(
    '',
    ` Test Files  ${failedFiles > 0 ? `${failedFiles} failed | ` : ''}${files - failedFiles} passed (${files})`,
    `      Tests  ${failed > 0 ? `${failed} failed | ` : ''}${passed} passed (${passed + failed})`,
    `   Start at  ${clock(atMs)}`,
    `   Duration  ${(durationMs / 1000).toFixed(2)}s (transform ${rng.int(80, 900)}ms, setup ${rng.int(0, 40)}ms, collect ${rng.int(200, 2400)}ms, tests ${rng.int(50, 3000)}ms, environment ${rng.int(0, 20)}ms, prepare ${rng.int(100, 900)}ms)`,
    '',
  );
  if (failed > 0) lines.push(' FAIL  Tests failed. Watch for file changes to re-run.');
  return { output: lines.join('\n'), passed, failed, durationMs };
}

/** A `pytest` run over a Python package. */
export function pytestRun(rng: Rng, repo: Repo, pkg: PackageInfo, failPercent: number): TestRunOutput {
  const lines = [
    '============================= test session starts ==============================',
    `platform linux -- Python 3.12.${rng.int(1, 7)}, pytest-8.3.${rng.int(1, 4)}, pluggy-1.5.0`,
    `rootdir: ${repo.projectPath}/${pkg.dir}`,
    `configfile: pyproject.toml`,
  ];
  const rows: string[] = [];
  const failures: string[] = [];
  const summary: string[] = [];
  let passed = 0;
  let failed = 0;
  let total = 0;
  const perFile = pkg.tests.map((path) => {
    const file = repo.file(path);
    const titles = file.tests.flatMap((t) => t.titles);
    total += titles.length;
    return { path, file, titles };
  });
  lines.push(`collected ${total} items`, '');
  let done = 0;
  for (const { path, file, titles } of perFile) {
    let marks = '';
    for (const title of titles) {
      const ok = !rng.chance(failPercent);
      marks += ok ? '.' : 'F';
      done++;
      if (ok) passed++;
      else {
        failed++;
        const a = rng.int(0, 50);
        const b = a + rng.int(1, 5);
        failures.push(
          [
            `${'_'.repeat(20)} ${title} ${'_'.repeat(20)}`,
            '',
            `    def ${title}():`,
            `>       assert ${(file.lines.find((l) => l.includes('assert')) ?? 'assert result')
              .trim()
              .replace(/^assert /, '')
              .replace(/ (==|is|!=) .*$/, '')} == ${b}`,
            `E       AssertionError: assert ${a} == ${b}`,
            '',
            `${path.split('/').slice(2).join('/')}:${rng.int(5, Math.max(6, file.lines.length))}: AssertionError`,
          ].join('\n'),
        );
        summary.push(`FAILED ${path.split('/').slice(2).join('/')}::${title} - AssertionError: assert ${a} == ${b}`);
      }
    }
    const pct = Math.floor((done * 100) / Math.max(1, total));
    rows.push(`${path.split('/').slice(2).join('/')} ${marks}`.padEnd(72, ' ') + ` [${String(pct).padStart(3, ' ')}%]`);
  }
  lines.push(...rows);
  const seconds = (rng.int(40, 900) / 100).toFixed(2);
  if (failures.length > 0) {
    lines.push(
      '',
      '=================================== FAILURES ===================================',
      ...failures.slice(0, MAX_FAILURE_BLOCKS),
      '=========================== short test summary info ============================',
      ...summary,
    );
  }
  lines.push(
    `${'='.repeat(20)} ${failed > 0 ? `${failed} failed, ` : ''}${passed} passed in ${seconds}s ${'='.repeat(20)}`,
  );
  return {
    output: lines.join('\n'),
    passed,
    failed,
    durationMs: Math.round(Number(seconds) * 1000) + rng.int(300, 2000),
  };
}

/** `tsc --noEmit` diagnostics for a package (empty output when clean). */
export function tscOutput(rng: Rng, repo: Repo, pkg: PackageInfo, errors: number): string {
  const lines: string[] = [];
  const messages = [
    () =>
      `error TS2322: Type '${rng.pick(['string', 'number', 'undefined', 'null'])}' is not assignable to type '${rng.pick(['string', 'number', 'boolean', 'Date'])}'.`,
    () => `error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.`,
    () =>
      `error TS2339: Property '${camel([rng.pick(ADJECTIVES), rng.pick(NOUNS)])}' does not exist on type '${camel([rng.pick(NOUNS)]).replace(/^./, (c) => c.toUpperCase())}'.`,
    () => `error TS7006: Parameter '${rng.pick(['entry', 'row', 'item'])}' implicitly has an 'any' type.`,
    () => `error TS2554: Expected ${rng.int(1, 3)} arguments, but got ${rng.int(0, 4)}.`,
    () => `error TS18048: '${camel([rng.pick(NOUNS)])}' is possibly 'undefined'.`,
  ];
  for (let i = 0; i < errors; i++) {
    const path = rng.pick(pkg.sources);
    const file = repo.file(path);
    lines.push(`${path}(${rng.int(1, Math.max(1, file.lines.length))},${rng.int(3, 40)}): ${rng.pick(messages)()}`);
  }
  if (errors > 0)
    lines.push(
      '',
      `Found ${errors} error${errors === 1 ? '' : 's'} in ${Math.min(errors, rng.int(1, 3))} file${errors === 1 ? '' : 's'}.`,
    );
  return lines.join('\n');
}
