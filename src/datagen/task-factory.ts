/** Builds the task a user message asks for, and the text it pastes, from the simulated repository. */
import { camel } from './names.js';
import type { PackageInfo, Repo } from './repo.js';
import type { Rng } from './rng.js';
import { serviceLog } from './service-log.js';
import type { PasteKind } from './session-plan.js';
import type { TaskContext } from './task.js';
import { nodeStackTrace, pytestRun, pythonTraceback, vitestRun } from './test-output.js';
import { ADJECTIVES, ERROR_PHRASES, NOUNS, TASK_KINDS, VERBS } from './vocab.js';

const CONCEPT_TAILS = [
  'handling',
  'retries',
  'validation',
  'pagination',
  'caching',
  'ordering',
  'cleanup',
  'export',
  'parsing',
  'limits',
  'backfill',
  'dedupe',
] as const;

/** A task in the package of `previous` (60%) or another one. */
export function makeTask(rng: Rng, repo: Repo, previous: TaskContext | null): TaskContext {
  const samePackage = previous !== null && rng.chance(60);
  const pkg: PackageInfo =
    (samePackage ? repo.packages.find((p) => p.dir === previous.packageDir) : undefined) ?? rng.pick(repo.packages);
  const files = rng.sample(pkg.sources, rng.int(2, Math.min(4, pkg.sources.length)));
  const symbols: string[] = [];
  for (const path of files) symbols.push(...repo.file(path).symbols);
  const focus = rng.sample(symbols.length > 0 ? symbols : [camel([rng.pick(VERBS), rng.pick(NOUNS)])], rng.int(2, 5));
  const errorText = rng
    .pick(ERROR_PHRASES)
    .replace('{n2}', rng.pick(NOUNS))
    .replace('{n}', rng.pick(NOUNS))
    .replace('{a}', rng.pick(ADJECTIVES))
    .replace('{v}', rng.pick(VERBS))
    .replace('{f}', camel([rng.pick(ADJECTIVES), rng.pick(NOUNS)]));
  return {
    kind: rng.pick(TASK_KINDS),
    packageDir: pkg.dir,
    packageName: pkg.name,
    language: pkg.language,
    files,
    testFiles: rng.sample(pkg.tests, rng.int(1, Math.min(2, pkg.tests.length))),
    symbols: focus,
    concept: `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} ${rng.pick(CONCEPT_TAILS)}`,
    errorText,
  };
}

/** What the user pastes under the prompt: a log excerpt, a stack trace or a test run, at most about `chars` long. */
export function makePaste(
  rng: Rng,
  repo: Repo,
  task: TaskContext,
  kind: PasteKind,
  chars: number,
  nowMs: number,
): string | null {
  const full = fullPaste(rng, repo, task, kind, chars, nowMs);
  if (full === null || full.length <= chars) return full;
  // People paste the tail of a long output: cut at a line boundary.
  const tail = full.slice(full.length - chars);
  const newline = tail.indexOf('\n');
  return newline >= 0 && newline < tail.length - 1 ? tail.slice(newline + 1) : tail;
}

function fullPaste(
  rng: Rng,
  repo: Repo,
  task: TaskContext,
  kind: PasteKind,
  chars: number,
  nowMs: number,
): string | null {
  const pkg = repo.packages.find((p) => p.dir === task.packageDir) ?? rng.pick(repo.packages);
  switch (kind) {
    case 'none':
      return null;
    case 'log':
      return serviceLog(rng, repo, pkg, nowMs - rng.int(3_600_000, 36_000_000), chars);
    case 'trace': {
      const traces: string[] = [];
      let length = 0;
      while (length < chars) {
        const t =
          pkg.language === 'py'
            ? pythonTraceback(rng, repo, pkg, task.errorText)
            : nodeStackTrace(rng, repo, pkg, task.errorText);
        traces.push(t);
        length += t.length;
      }
      return traces.join('\n\n');
    }
    case 'test-output':
      return pkg.language === 'py'
        ? pytestRun(rng, repo, pkg, 12).output
        : vitestRun(rng, repo, pkg, nowMs - rng.int(60_000, 3_600_000), 12, chars > 6000).output;
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}
