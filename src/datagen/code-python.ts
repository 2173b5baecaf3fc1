/**
 * Python modules and pytest files composed from the word lists: imports, dataclasses, functions
 * with docstrings and nested control flow, and test functions.
 */
import { codeSentence } from './code-typescript.js';
import { pascal, screaming, snake, testTitle, typeWords, variableWords, functionWords } from './names.js';
import { pastTense, plural } from './english.js';
import type { Rng } from './rng.js';
import type { SourceFile } from './source-file.js';
import { ADJECTIVES, ERROR_PHRASES, NOUNS, PY_DEPS, PY_TYPES, VERBS } from './vocab.js';

interface PyScope {
  readonly rng: Rng;
  readonly locals: string[];
  readonly fns: string[];
  readonly classes: string[];
  readonly consts: string[];
}

function pyLocal(scope: PyScope): string {
  if (scope.locals.length > 0 && scope.rng.chance(55)) return scope.rng.pick(scope.locals);
  const name = snake(variableWords(scope.rng));
  scope.locals.push(name);
  return name;
}

function pyLiteral(rng: Rng): string {
  return rng.pick([
    String(rng.int(0, 5000)),
    `"${rng.pick(ADJECTIVES)}"`,
    'None',
    'True',
    'False',
    '[]',
    '{}',
    `${rng.int(1, 60)}_000`,
    `"${rng.pick(NOUNS)}-${rng.int(1, 99)}"`,
  ]);
}

function pyExpr(scope: PyScope): string {
  const { rng } = scope;
  const v = pyLocal(scope);
  const attr = snake(variableWords(rng));
  return rng.pick([
    `${rng.pick(scope.fns)}(${v})`,
    `${v}.${attr}`,
    `[e.${attr} for e in ${v} if e.${attr} is not None]`,
    `{e.id: e for e in ${v}}`,
    `len(${v})`,
    `sum(e.${attr} for e in ${v})`,
    `${rng.pick(scope.classes)}(${attr}=${pyLiteral(rng)})`,
    `${v}.get("${attr}", ${pyLiteral(rng)})`,
    `max(${v}, key=lambda e: e.${attr})`,
    `f"{${v}}:{${pyLocal(scope)}}"`,
    `${v}[: ${rng.pick(scope.consts)}]`,
    `sorted(${v}, key=lambda e: e.${attr})`,
  ]);
}

function pyStatements(scope: PyScope, indent: string, budget: number, depth: number): string[] {
  const { rng } = scope;
  const out: string[] = [];
  while (out.length < budget) {
    const kind = rng.weighted<string>([
      ['assign', 32],
      ['call', 12],
      ['if', depth < 3 ? 14 : 0],
      ['for', depth < 3 ? 9 : 0],
      ['try', depth < 2 ? 4 : 0],
      ['comment', 7],
      ['log', 7],
    ]);
    switch (kind) {
      case 'assign':
        out.push(`${indent}${snake(variableWords(rng))} = ${pyExpr(scope)}`);
        break;
      case 'call':
        out.push(`${indent}${rng.pick(scope.fns)}(${pyLocal(scope)})`);
        break;
      case 'comment':
        out.push(`${indent}# ${codeSentence(rng)}`);
        break;
      case 'log':
        out.push(
          `${indent}logger.${rng.pick(['debug', 'info', 'warning'])}("${pastTense(rng.pick(VERBS))} %s ${plural(rng.pick(NOUNS))}", ${pyExpr(scope)})`,
        );
        break;
      case 'if':
        out.push(
          `${indent}if ${rng.pick([`not ${pyLocal(scope)}`, `${pyLocal(scope)} is None`, `len(${pyLocal(scope)}) > ${rng.pick(scope.consts)}`, `${pyLocal(scope)}.status == "${rng.pick(ADJECTIVES)}"`])}:`,
        );
        out.push(...pyStatements(scope, `${indent}    `, rng.int(1, 3), depth + 1));
        if (rng.chance(35)) out.push(`${indent}    return ${pyExpr(scope)}`);
        break;
      case 'for': {
        const item = rng.pick(['entry', 'row', 'item', 'record', 'chunk']);
        out.push(`${indent}for ${item} in ${pyLocal(scope)}:`);
        scope.locals.push(item);
        out.push(...pyStatements(scope, `${indent}    `, rng.int(1, 3), depth + 1));
        break;
      }
      case 'try': {
        out.push(`${indent}try:`);
        out.push(...pyStatements(scope, `${indent}    `, rng.int(1, 3), depth + 1));
        out.push(`${indent}except ${rng.pick(['KeyError', 'ValueError', 'TimeoutError', 'OSError'])} as exc:`);
        const phrase = rng
          .pick(ERROR_PHRASES)
          .replace('{n2}', rng.pick(NOUNS))
          .replace('{n}', rng.pick(NOUNS))
          .replace('{a}', rng.pick(ADJECTIVES))
          .replace('{v}', rng.pick(VERBS))
          .replace('{f}', snake(variableWords(rng)));
        out.push(`${indent}    raise ${pascal([rng.pick(NOUNS), 'error'])}(f"${phrase}: {exc}") from exc`);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** A few statements in the style of the module generator, for an edit's inserted lines. */
export function pythonStatements(rng: Rng, indent: string, count: number): string[] {
  const scope: PyScope = {
    rng,
    locals: [],
    fns: [snake(functionWords(rng)), snake(functionWords(rng))],
    classes: [pascal(typeWords(rng))],
    consts: [screaming([rng.pick(['max', 'default']), rng.pick(NOUNS), 'size'])],
  };
  return pyStatements(scope, indent, count, 0);
}

/** A Python module of roughly `targetLines` lines. */
export function pythonModule(rng: Rng, path: string, targetLines: number): SourceFile {
  const lines: string[] = ['from __future__ import annotations', ''];
  for (const dep of rng.sample(PY_DEPS, rng.int(2, 4)))
    lines.push(rng.chance(50) ? `import ${dep}` : `from ${dep} import ${snake([rng.pick(VERBS)])}`);
  lines.push('');
  lines.push('logger = logging.getLogger(__name__)');
  const consts = Array.from({ length: rng.int(1, 3) }, () =>
    screaming([rng.pick(['max', 'default', 'min']), rng.pick(NOUNS), rng.pick(['size', 'seconds', 'count'])]),
  );
  for (const c of consts) lines.push(`${c} = ${rng.int(2, 900)}`);
  lines.push('');
  const classes = Array.from({ length: rng.int(1, 3) }, () => pascal(typeWords(rng)));
  const scope: PyScope = { rng, locals: [], fns: [], classes, consts };
  for (const cls of classes) {
    lines.push('', '@dataclass(frozen=True)', `class ${cls}:`, `    """${codeSentence(rng)}"""`, '');
    for (let i = rng.int(2, 7); i > 0; i--)
      lines.push(
        `    ${snake(variableWords(rng))}: ${rng.pick(PY_TYPES)}${rng.chance(25) ? ` = ${pyLiteral(rng)}` : ''}`,
      );
  }
  const symbols: string[] = [...classes];
  while (lines.length < targetLines) {
    const name = snake(functionWords(rng));
    scope.fns.push(name);
    if (!name.startsWith('_')) symbols.push(name);
    scope.locals.length = 0;
    const params = Array.from({ length: rng.int(1, 3) }, () => {
      const p = snake(variableWords(rng));
      scope.locals.push(p);
      return `${p}: ${rng.chance(40) ? rng.pick(classes) : rng.pick(PY_TYPES)}`;
    });
    lines.push('', '');
    lines.push(
      `${rng.chance(30) ? 'async ' : ''}def ${name}(${params.join(', ')}) -> ${rng.pick([...classes, 'int', 'None', 'bool', 'str'])}:`,
    );
    lines.push(`    """${codeSentence(rng)}"""`);
    lines.push(...pyStatements(scope, '    ', rng.int(3, 12), 0));
    lines.push(`    return ${pyExpr(scope)}`);
  }
  return { path, language: 'py', role: 'source', lines, symbols, tests: [] };
}

/** A pytest module exercising `subjects` imported from `module`. */
export function pythonTestModule(
  rng: Rng,
  path: string,
  module: string,
  subjects: readonly string[],
  targetLines: number,
): SourceFile {
  const picked = subjects.length > 0 ? rng.sample(subjects, rng.int(1, Math.min(3, subjects.length))) : ['subject'];
  const lines: string[] = ['import pytest', '', `from ${module} import ${picked.join(', ')}`, ''];
  const tests: { suite: string; titles: string[] }[] = [];
  const titles: string[] = [];
  tests.push({ suite: module, titles });
  while (lines.length < targetLines || titles.length === 0) {
    const subject = rng.pick(picked);
    const title = `test_${snake(
      testTitle(rng, subject)
        .replace(/[^a-zA-Z0-9 ]/g, ' ')
        .trim()
        .split(/\s+/)
        .slice(0, 8),
    )}`;
    titles.push(title);
    lines.push('', '');
    if (rng.chance(20))
      lines.push(`@pytest.mark.parametrize("${snake(variableWords(rng))}", [${pyLiteral(rng)}, ${pyLiteral(rng)}])`);
    lines.push(`def ${title}(${rng.chance(40) ? 'tmp_path' : ''}):`);
    const fixture = snake(variableWords(rng));
    lines.push(`    ${fixture} = make_${snake([rng.pick(NOUNS)])}(${snake([rng.pick(NOUNS)])}=${pyLiteral(rng)})`);
    lines.push(`    assert ${subject}(${fixture}) ${rng.pick(['==', 'is', '!='])} ${pyLiteral(rng)}`);
  }
  return { path, language: 'py', role: 'test', lines, symbols: [], tests };
}
