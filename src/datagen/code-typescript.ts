/**
 * TypeScript source and vitest files composed from the word lists: imports, interfaces,
 * constants, functions with nested control flow, JSDoc, and test suites. The code does not
 * have to compile; it has to look like the code a coding agent reads and edits.
 */
import { camel, functionWords, pascal, screaming, testTitle, typeWords, variableWords } from './names.js';
import { participle, pastTense, plural, thirdPerson, withArticle } from './english.js';
import type { Rng } from './rng.js';
import type { SourceFile } from './source-file.js';
import { ADJECTIVES, ERROR_PHRASES, NOUNS, NPM_DEPS, TS_TYPES, VERBS } from './vocab.js';

const NODE_EXPORTS: Readonly<Record<string, readonly string[]>> = {
  'node:fs/promises': ['readFile', 'writeFile', 'mkdir', 'rm', 'stat', 'rename'],
  'node:path': ['join', 'dirname', 'resolve', 'basename'],
  'node:crypto': ['createHash', 'randomUUID', 'timingSafeEqual'],
  'node:events': ['EventEmitter', 'once', 'on'],
  'node:stream': ['Readable', 'Transform', 'pipeline'],
};

interface Scope {
  readonly rng: Rng;
  readonly locals: string[];
  readonly types: string[];
  readonly fns: string[];
  readonly consts: string[];
}

function phrase(rng: Rng, template: string): string {
  return template
    .replace('{n2}', rng.pick(NOUNS))
    .replace('{n}', rng.pick(NOUNS))
    .replace('{a}', rng.pick(ADJECTIVES))
    .replace('{v}', rng.pick(VERBS))
    .replace('{f}', camel(variableWords(rng)));
}

/** A one-line comment or JSDoc sentence about code. */
export function codeSentence(rng: Rng): string {
  const n = rng.pick(NOUNS);
  const a = rng.pick(ADJECTIVES);
  const v = rng.pick(VERBS);
  return rng.pick([
    `${capital(thirdPerson(v))} the ${a} ${n} before it reaches the ${rng.pick(NOUNS)}.`,
    `Keep this in sync with the ${n} ${rng.pick(['schema', 'migration', 'contract', 'docs'])}.`,
    `The ${n} may be ${a}; callers must ${v} it first.`,
    `Returns undefined when no ${n} matches.`,
    `Order matters here: ${plural(rng.pick(NOUNS))} are ${participle(v)} before ${plural(n)}.`,
    `TODO(${rng.pick(['mara', 'jonas', 'priya', 'omar'])}): ${v} ${a} ${plural(n)} in one pass.`,
    `Times are epoch milliseconds, never seconds.`,
    `${capital(withArticle(a))} ${n} is retried at most ${rng.int(2, 6)} times.`,
    `Pure: no I/O, the ${n} is passed in.`,
    `Mirrors the ${rng.pick(['upstream', 'legacy', 'v1', 'v2'])} ${n} behaviour on purpose.`,
    `Callers hold the ${n} lock while this runs.`,
    `See ${rng.pick(['ADR-0007', 'ADR-0012', 'the runbook', 'issue #' + String(rng.int(100, 2400))])} for why the ${n} is ${participle(v)} lazily.`,
    `Throws if the ${n} was already ${participle(v)}.`,
    `Idempotent: ${gerundPhrase(v)} the same ${n} twice is a no-op.`,
  ]);
}

function gerundPhrase(verb: string): string {
  return verb.endsWith('e') ? `${verb.slice(0, -1)}ing` : `${verb}ing`;
}

function capital(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function local(scope: Scope): string {
  if (scope.locals.length > 0 && scope.rng.chance(55)) return scope.rng.pick(scope.locals);
  const name = camel(variableWords(scope.rng));
  scope.locals.push(name);
  return name;
}

function literal(rng: Rng): string {
  return rng.pick([
    String(rng.int(0, 5000)),
    `'${rng.pick(ADJECTIVES)}'`,
    `'${rng.pick(NOUNS)}-${rng.int(1, 99)}'`,
    'null',
    'undefined',
    'true',
    'false',
    '[]',
    '{}',
    `${rng.int(1, 60)}_000`,
  ]);
}

function expr(scope: Scope): string {
  const { rng } = scope;
  const fn = rng.pick(scope.fns);
  const v = local(scope);
  const prop = camel(variableWords(rng));
  return rng.pick([
    `${fn}(${v})`,
    `await ${fn}(${v}, ${literal(rng)})`,
    `${v}.${prop}`,
    `${v}.map((${rng.pick(['item', 'row', 'entry', 'x'])}) => ${rng.pick(['item', 'row', 'entry', 'x'])}.${prop})`,
    `${v}.filter((entry) => entry.${prop} !== ${literal(rng)})`,
    `new Map<string, ${rng.pick(scope.types)}>()`,
    `[...${v}, ${local(scope)}]`,
    `{ ...${v}, ${prop}: ${literal(rng)} }`,
    `Math.max(${v}.length, ${rng.pick(scope.consts)})`,
    `${v} ?? ${literal(rng)}`,
    `\`\${${v}}:\${${local(scope)}}\``,
    `${v}.${prop}.slice(0, ${rng.pick(scope.consts)})`,
    `Object.fromEntries(${v}.map((e) => [e.id, e]))`,
    `${rng.pick(scope.types)}Schema.parse(${v})`,
    `${v}.reduce((sum, e) => sum + e.${prop}, 0)`,
    `Date.now() - ${v}.${prop}`,
  ]);
}

function condition(scope: Scope): string {
  const { rng } = scope;
  const v = local(scope);
  return rng.pick([
    `${v}.length === 0`,
    `!${v}`,
    `${v} > ${rng.pick(scope.consts)}`,
    `${v}.status === '${rng.pick(ADJECTIVES)}'`,
    `${v} === undefined`,
    `options.${camel([rng.pick(ADJECTIVES)])}`,
    `${v}.${camel([rng.pick(NOUNS)])}Ms < Date.now()`,
    `!${rng.pick(scope.fns)}(${v})`,
    `${v}.kind !== '${rng.pick(NOUNS)}'`,
    `${v}.size >= ${rng.pick(scope.consts)}`,
  ]);
}

function statements(scope: Scope, indent: string, budget: number, depth: number): string[] {
  const { rng } = scope;
  const out: string[] = [];
  while (out.length < budget) {
    const kind = rng.weighted<string>([
      ['const', 30],
      ['call', 14],
      ['if', depth < 3 ? 14 : 0],
      ['for', depth < 3 ? 8 : 0],
      ['try', depth < 2 ? 4 : 0],
      ['comment', 8],
      ['log', 6],
      ['assign', 8],
      ['switch', depth < 2 ? 3 : 0],
    ]);
    switch (kind) {
      case 'const':
        out.push(`${indent}const ${camel(variableWords(rng))} = ${expr(scope)};`);
        break;
      case 'call':
        out.push(
          `${indent}${rng.chance(50) ? 'await ' : ''}${rng.pick(scope.fns)}(${local(scope)}${rng.chance(40) ? `, ${literal(rng)}` : ''});`,
        );
        break;
      case 'assign':
        out.push(`${indent}${local(scope)}.${camel(variableWords(rng))} = ${expr(scope)};`);
        break;
      case 'comment':
        out.push(`${indent}// ${codeSentence(rng)}`);
        break;
      case 'log':
        out.push(
          `${indent}logger.${rng.pick(['debug', 'info', 'warn'])}({ ${camel(variableWords(rng))}: ${local(scope)} }, '${pastTense(rng.pick(VERBS))} ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}');`,
        );
        break;
      case 'if': {
        out.push(`${indent}if (${condition(scope)}) {`);
        out.push(...statements(scope, `${indent}  `, rng.int(1, 4), depth + 1));
        if (rng.chance(30)) {
          out.push(`${indent}} else {`);
          out.push(...statements(scope, `${indent}  `, rng.int(1, 3), depth + 1));
        }
        if (rng.chance(35)) out.push(`${indent}  return ${expr(scope)};`);
        out.push(`${indent}}`);
        break;
      }
      case 'for': {
        const item = rng.pick(['entry', 'row', 'item', 'record', 'chunk', 'event']);
        out.push(`${indent}for (const ${item} of ${local(scope)}) {`);
        scope.locals.push(item);
        out.push(...statements(scope, `${indent}  `, rng.int(1, 4), depth + 1));
        out.push(`${indent}}`);
        break;
      }
      case 'try': {
        out.push(`${indent}try {`);
        out.push(...statements(scope, `${indent}  `, rng.int(1, 4), depth + 1));
        out.push(`${indent}} catch (error) {`);
        out.push(`${indent}  logger.warn({ err: error }, '${rng.pick(VERBS)} ${rng.pick(NOUNS)} failed');`);
        out.push(
          `${indent}  throw new ${pascal([rng.pick(NOUNS), 'error'])}(\`${phrase(rng, rng.pick(ERROR_PHRASES))}: \${String(error)}\`);`,
        );
        out.push(`${indent}}`);
        break;
      }
      case 'switch': {
        out.push(`${indent}switch (${local(scope)}.kind) {`);
        const cases = rng.sample(NOUNS, rng.int(2, 4));
        for (const c of cases) {
          out.push(`${indent}  case '${c}':`);
          out.push(...statements(scope, `${indent}    `, rng.int(1, 2), depth + 2));
          out.push(`${indent}    break;`);
        }
        out.push(`${indent}  default:`);
        out.push(`${indent}    throw new Error(\`unexpected kind \${String(${local(scope)})}\`);`);
        out.push(`${indent}}`);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** A few statements in the style of the module generator, for an edit's inserted lines. */
export function typescriptStatements(rng: Rng, indent: string, count: number): string[] {
  const scope: Scope = {
    rng,
    locals: [],
    types: [pascal(typeWords(rng))],
    fns: [camel(functionWords(rng)), camel(functionWords(rng))],
    consts: [screaming([rng.pick(['max', 'default']), rng.pick(NOUNS), 'size'])],
  };
  return statements(scope, indent, count, 0);
}

function functionBlock(scope: Scope, name: string, exported: boolean, bodyLines: number): string[] {
  const { rng } = scope;
  const params: string[] = [];
  const paramCount = rng.int(1, 3);
  for (let i = 0; i < paramCount; i++) {
    const p = camel(variableWords(rng));
    scope.locals.push(p);
    params.push(`${p}: ${rng.chance(50) ? rng.pick(scope.types) : rng.pick(TS_TYPES)}`);
  }
  if (rng.chance(30)) params.push(`options: ${rng.pick(scope.types)}Options = {}`);
  const isAsync = rng.chance(45);
  const ret = rng.pick([...scope.types, 'number', 'void', 'boolean', 'string']);
  const lines: string[] = [];
  if (rng.chance(70)) {
    lines.push('/**');
    lines.push(` * ${codeSentence(rng)}`);
    if (rng.chance(40)) lines.push(` * ${codeSentence(rng)}`);
    lines.push(' */');
  }
  lines.push(
    `${exported ? 'export ' : ''}${isAsync ? 'async ' : ''}function ${name}(${params.join(', ')}): ${isAsync ? `Promise<${ret}>` : ret} {`,
  );
  lines.push(...statements(scope, '  ', bodyLines, 0));
  lines.push(`  return ${expr(scope)};`);
  lines.push('}');
  return lines;
}

function interfaceBlock(rng: Rng, name: string, types: readonly string[]): string[] {
  const lines: string[] = [];
  if (rng.chance(50)) lines.push(`/** ${codeSentence(rng)} */`);
  lines.push(`export interface ${name} {`);
  const fields = rng.int(3, 9);
  for (let i = 0; i < fields; i++) {
    const field = camel(variableWords(rng));
    const type = rng.chance(30) ? rng.pick(types) : rng.pick(TS_TYPES);
    lines.push(`  ${rng.chance(25) ? 'readonly ' : ''}${field}${rng.chance(20) ? '?' : ''}: ${type};`);
  }
  lines.push('}');
  return lines;
}

/** A TypeScript module of roughly `targetLines` lines with `symbols` naming its exported functions. */
export function typescriptModule(
  rng: Rng,
  path: string,
  targetLines: number,
  imports: readonly { from: string; names: readonly string[] }[],
): SourceFile {
  const types = Array.from({ length: rng.int(2, 4) }, () => pascal(typeWords(rng)));
  const consts = Array.from({ length: rng.int(1, 3) }, () =>
    screaming([
      rng.pick(['max', 'default', 'min']),
      rng.pick(NOUNS),
      rng.pick(['size', 'ms', 'count', 'bytes', 'retries']),
    ]),
  );
  const exportedFns: string[] = [];
  const scope: Scope = { rng, locals: [], types, fns: [], consts };
  for (const imp of imports) scope.fns.push(...imp.names);
  const lines: string[] = [];
  const deps = rng.sample(NPM_DEPS, rng.int(1, 3));
  for (const dep of deps) {
    const names = NODE_EXPORTS[dep];
    if (dep === 'zod') lines.push("import { z } from 'zod';");
    else if (names !== undefined)
      lines.push(`import { ${rng.sample(names, rng.int(1, 2)).join(', ')} } from '${dep}';`);
    else
      lines.push(
        `import ${camel(
          dep
            .replace(/[^a-z]/g, ' ')
            .trim()
            .split(' '),
        )} from '${dep}';`,
      );
  }
  for (const imp of imports) lines.push(`import { ${imp.names.join(', ')} } from '${imp.from}';`);
  lines.push("import { logger } from '../logger.js';");
  lines.push('');
  for (const c of consts) lines.push(`export const ${c} = ${rng.pick([rng.int(2, 900), `${rng.int(1, 30)}_000`])};`);
  lines.push('');
  for (const t of types) {
    lines.push(...interfaceBlock(rng, t, types));
    lines.push('');
  }
  while (lines.length < targetLines) {
    const name = camel(functionWords(rng));
    const exported = rng.chance(70);
    if (exported) exportedFns.push(name);
    scope.fns.push(name);
    scope.locals.length = 0;
    lines.push(...functionBlock(scope, name, exported, rng.int(3, 14)));
    lines.push('');
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (exportedFns.length === 0) exportedFns.push(scope.fns[scope.fns.length - 1] ?? camel(functionWords(rng)));
  return { path, language: 'ts', role: 'source', lines, symbols: exportedFns, tests: [] };
}

/** A vitest file exercising `subjects` imported from `from`. */
export function typescriptTestModule(
  rng: Rng,
  path: string,
  from: string,
  subjects: readonly string[],
  targetLines: number,
): SourceFile {
  const lines: string[] = [];
  const picked = subjects.length > 0 ? rng.sample(subjects, rng.int(1, Math.min(3, subjects.length))) : ['subject'];
  lines.push("import { describe, expect, it } from 'vitest';");
  lines.push(`import { ${picked.join(', ')} } from '${from}';`);
  lines.push('');
  const tests: { suite: string; titles: string[] }[] = [];
  let suiteIndex = 0;
  while (lines.length < targetLines || tests.length === 0) {
    const subject = picked[suiteIndex % picked.length] ?? 'subject';
    suiteIndex += 1;
    const titles: string[] = [];
    const suite = { suite: subject, titles };
    tests.push(suite);
    lines.push(`describe('${subject}', () => {`);
    const count = rng.int(2, 6);
    for (let i = 0; i < count; i++) {
      const title = testTitle(rng, subject);
      suite.titles.push(title);
      lines.push(`  it('${title.replace(/'/g, "\\'")}', ${rng.chance(50) ? 'async ' : ''}() => {`);
      const fixture = camel(variableWords(rng));
      lines.push(
        `    const ${fixture} = make${pascal([rng.pick(NOUNS)])}({ ${camel([rng.pick(NOUNS)])}: ${literal(rng)} });`,
      );
      for (let k = rng.int(0, 3); k > 0; k--)
        lines.push(`    ${fixture}.${camel(variableWords(rng))} = ${literal(rng)};`);
      lines.push(
        `    expect(${rng.chance(50) ? 'await ' : ''}${subject}(${fixture})).${rng.pick([
          `toBe(${literal(rng)})`,
          `toEqual(${literal(rng)})`,
          `toHaveLength(${rng.int(0, 12)})`,
          `toMatchObject({ ${camel([rng.pick(NOUNS)])}: ${literal(rng)} })`,
          'toBeUndefined()',
          `toThrow(/${rng.pick(NOUNS)}/)`,
        ])};`,
      );
      lines.push('  });');
      lines.push('');
    }
    lines.pop();
    lines.push('});');
    lines.push('');
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return { path, language: 'ts', role: 'test', lines, symbols: [], tests };
}
