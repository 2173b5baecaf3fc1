/**
 * Identifier composition: functions, types, constants, test names and file names built from the
 * word lists in the casing each language uses.
 */
import { gerund, plural, RESERVED_WORDS, thirdPerson, withArticle } from './english.js';
import type { Rng } from './rng.js';
import { ADJECTIVES, NOUNS, VERBS } from './vocab.js';

/** A reserved word cannot name a variable: such names get a suffix (`export` → `exportValue`). */
function safe(name: string, suffix: string): string {
  return RESERVED_WORDS.has(name) ? `${name}${suffix}` : name;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** `camelCase` from words. */
export function camel(words: readonly string[]): string {
  return safe(words.map((w, i) => (i === 0 ? w.toLowerCase() : capitalize(w.toLowerCase()))).join(''), 'Value');
}

/** `PascalCase` from words. */
export function pascal(words: readonly string[]): string {
  return words.map((w) => capitalize(w.toLowerCase())).join('');
}

/** `snake_case` from words. */
export function snake(words: readonly string[]): string {
  return safe(words.map((w) => w.toLowerCase()).join('_'), '_value');
}

/** `SCREAMING_SNAKE` from words. */
export function screaming(words: readonly string[]): string {
  return snake(words).toUpperCase();
}

/** `kebab-case` from words. */
export function kebab(words: readonly string[]): string {
  return words.map((w) => w.toLowerCase()).join('-');
}

/** Words for a function: a verb, an optional qualifier, a noun (`flushPendingBatch`). */
export function functionWords(rng: Rng): string[] {
  const words: string[] = [rng.pick(VERBS)];
  if (rng.chance(45)) words.push(rng.pick(ADJECTIVES));
  words.push(rng.pick(NOUNS));
  if (rng.chance(15)) words.push(rng.pick(NOUNS));
  return words;
}

/** Words for a type: optional qualifier + one or two nouns (`PendingBatchRecord`). */
export function typeWords(rng: Rng): string[] {
  const words: string[] = [];
  if (rng.chance(40)) words.push(rng.pick(ADJECTIVES));
  words.push(rng.pick(NOUNS));
  if (rng.chance(50)) words.push(rng.pick(NOUNS));
  return words;
}

/** Words for a variable: a noun, sometimes qualified (`staleEntries`). */
export function variableWords(rng: Rng): string[] {
  const words: string[] = [];
  if (rng.chance(35)) words.push(rng.pick(ADJECTIVES));
  words.push(rng.pick(NOUNS));
  if (rng.chance(20)) words.push(rng.pick(['count', 'ids', 'map', 'list', 'ms', 'bytes', 'key', 'index']));
  return words;
}

/** A test title in the "does X when Y" style. */
export function testTitle(rng: Rng, subject: string): string {
  const n = rng.pick(NOUNS);
  const a = rng.pick(ADJECTIVES);
  const v = rng.pick(VERBS);
  const outcome = rng.pick([
    `returns ${a} ${plural(n)} for ${subject}`,
    `rejects ${withArticle(a)} ${n}`,
    `keeps the ${n} order when ${gerund(v)} ${plural(rng.pick(NOUNS))}`,
    `${thirdPerson(v)} ${plural(n)} in batches of ${rng.pick([2, 8, 16, 50, 100, 500])}`,
    `does not ${v} ${withArticle(a)} ${n} twice`,
    `handles an empty ${n}`,
    `throws when the ${n} is ${rng.pick(['missing', 'expired', 'locked', 'stale', 'negative', 'too large'])}`,
    `${thirdPerson(v)} after ${rng.pick([2, 3, 5])} ${rng.pick(['retries', 'timeouts', 'failures', 'ticks'])}`,
    `maps ${n} to ${rng.pick(NOUNS)} with ${a} defaults`,
    `round-trips ${withArticle(a)} ${n} through ${subject}`,
    `ignores ${plural(n)} older than ${rng.pick([5, 15, 30, 60])} minutes`,
    `${thirdPerson(v)} the ${n} exactly once under concurrency`,
  ]);
  return outcome;
}
