/**
 * Just enough English morphology for composed prose and identifiers not to read as machine
 * output: past tense, participle, third person, gerund, plural, indefinite article.
 */

const IRREGULAR_PAST: Readonly<Record<string, string>> = {
  build: 'built',
  find: 'found',
  run: 'ran',
  send: 'sent',
  split: 'split',
  write: 'wrote',
  read: 'read',
  keep: 'kept',
  hold: 'held',
  set: 'set',
  shut: 'shut',
  put: 'put',
  cast: 'cast',
};

const IRREGULAR_PARTICIPLE: Readonly<Record<string, string>> = {
  build: 'built',
  find: 'found',
  run: 'run',
  send: 'sent',
  split: 'split',
  write: 'written',
  read: 'read',
  keep: 'kept',
  hold: 'held',
  set: 'set',
  shut: 'shut',
  put: 'put',
  cast: 'cast',
};

/** Verbs that double their final consonant (`log` → `logged`, `emit` → `emitting`). */
const DOUBLING = new Set([
  'log',
  'map',
  'tag',
  'plan',
  'stop',
  'drop',
  'wrap',
  'skip',
  'strip',
  'swap',
  'submit',
  'commit',
  'emit',
  'pin',
  'ship',
  'trim',
  'flag',
  'step',
  'scan',
  'ban',
  'bin',
  'chip',
  'infer',
  'defer',
  'refer',
  'admit',
  'rebin',
]);

function consonantY(word: string): boolean {
  return /[^aeiou]y$/.test(word);
}

/** `fetch` → `fetched`, `cache` → `cached`, `copy` → `copied`, `log` → `logged`, `build` → `built`. */
export function pastTense(verb: string): string {
  const irregular = IRREGULAR_PAST[verb];
  if (irregular !== undefined) return irregular;
  if (verb.endsWith('e')) return `${verb}d`;
  if (consonantY(verb)) return `${verb.slice(0, -1)}ied`;
  if (DOUBLING.has(verb)) return `${verb}${verb.slice(-1)}ed`;
  return `${verb}ed`;
}

/** The past participle (`written`, `run`, otherwise the past tense). */
export function participle(verb: string): string {
  return IRREGULAR_PARTICIPLE[verb] ?? pastTense(verb);
}

/** `fetch` → `fetches`, `copy` → `copies`, `parse` → `parses`. */
export function thirdPerson(verb: string): string {
  if (/(s|sh|ch|x|z)$/.test(verb)) return `${verb}es`;
  if (consonantY(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** `parse` → `parsing`, `log` → `logging`, `queue` → `queueing`. */
export function gerund(verb: string): string {
  if (verb.endsWith('ie')) return `${verb.slice(0, -2)}ying`;
  if (verb.endsWith('e') && !/(ee|ye|oe|ue)$/.test(verb)) return `${verb.slice(0, -1)}ing`;
  if (DOUBLING.has(verb)) return `${verb}${verb.slice(-1)}ing`;
  return `${verb}ing`;
}

/** `batch` → `batches`, `policy` → `policies`, `index` → `indexes`, `status` → `statuses`. */
export function plural(noun: string): string {
  if (/(s|x|z|ch|sh)$/.test(noun)) return `${noun}es`;
  if (consonantY(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/** `a` or `an` before `word`. */
export function article(word: string): string {
  if (/^(uni|use|usa|one)/i.test(word)) return 'a';
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/** `word` with its indefinite article. */
export function withArticle(word: string): string {
  return `${article(word)} ${word}`;
}

/** JavaScript and Python words that cannot be identifiers. */
export const RESERVED_WORDS = new Set([
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'yield',
  'let',
  'static',
  'await',
  'async',
  'interface',
  'package',
  'private',
  'public',
  'protected',
  'implements',
  'and',
  'as',
  'assert',
  'def',
  'del',
  'elif',
  'except',
  'from',
  'global',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'with',
  'print',
  'exec',
]);
