/**
 * Identifier composition: functions, types, constants, test names and file names built from the
 * word lists in the casing each language uses.
 */
import type { Rng } from './rng.js';
import { ADJECTIVES, NOUNS, VERBS } from './vocab.js';

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** `camelCase` from words. */
export function camel(words: readonly string[]): string {
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : capitalize(w.toLowerCase()))).join('');
}

/** `PascalCase` from words. */
export function pascal(words: readonly string[]): string {
  return words.map((w) => capitalize(w.toLowerCase())).join('');
}

/** `snake_case` from words. */
export function snake(words: readonly string[]): string {
  return words.map((w) => w.toLowerCase()).join('_');
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
  const outcome = rng.pick([
    `returns ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}s for ${subject}`,
    `rejects a ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`,
    `keeps the ${rng.pick(NOUNS)} order when ${rng.pick(VERBS)}ing ${rng.pick(NOUNS)}s`,
    `${rng.pick(VERBS)}s ${rng.pick(NOUNS)}s in batches of ${rng.pick([2, 8, 16, 50, 100, 500])}`,
    `does not ${rng.pick(VERBS)} a ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} twice`,
    `handles an empty ${rng.pick(NOUNS)}`,
    `throws when the ${rng.pick(NOUNS)} is ${rng.pick(['missing', 'expired', 'locked', 'stale', 'negative', 'too large'])}`,
    `${rng.pick(VERBS)}s after ${rng.pick([1, 2, 3, 5])} ${rng.pick(['retries', 'timeouts', 'failures', 'ticks'])}`,
    `maps ${rng.pick(NOUNS)} to ${rng.pick(NOUNS)} with ${rng.pick(ADJECTIVES)} defaults`,
    `round-trips a ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} through ${subject}`,
  ]);
  return outcome;
}
