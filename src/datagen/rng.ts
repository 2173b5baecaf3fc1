/**
 * The generator's only source of randomness: a seeded xoroshiro128+ stream (pure-rand) with the
 * few draws the content and session models need. Every draw is integer arithmetic, so the same
 * seed gives the same bytes on every platform. `fork(label)` derives an independent stream, so a
 * change in how one aspect is drawn (say, prose) does not shift another (say, timing).
 */
import { unsafeUniformIntDistribution, xoroshiro128plus } from 'pure-rand';
import type { RandomGenerator } from 'pure-rand';

/** FNV-1a over the UTF-16 code units of the parts joined by `/`: a stable 32-bit seed for a label. */
export function hashSeed(...parts: readonly (string | number)[]): number {
  const text = parts.map(String).join('/');
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash | 0;
}

export class Rng {
  private readonly generator: RandomGenerator;

  constructor(seed: number) {
    this.generator = xoroshiro128plus(seed | 0);
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    if (max < min) throw new RangeError(`Rng.int: empty range [${min}, ${max}]`);
    return unsafeUniformIntDistribution(min, max, this.generator);
  }

  /** True with probability `numerator / denominator` (integers, so the draw stays exact). */
  chance(numerator: number, denominator = 100): boolean {
    return this.int(1, denominator) <= numerator;
  }

  /** One element, uniformly. */
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new RangeError('Rng.pick: empty list');
    return item;
  }

  /** One element with integer weights. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, weight] of entries) total += weight;
    let draw = this.int(1, total);
    for (const [value, weight] of entries) {
      draw -= weight;
      if (draw <= 0) return value;
    }
    throw new RangeError('Rng.weighted: no positive weight');
  }

  /** `count` distinct elements in random order (all of them when the list is shorter). */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items];
    const out: T[] = [];
    while (out.length < count && copy.length > 0) {
      const index = this.int(0, copy.length - 1);
      const [item] = copy.splice(index, 1);
      if (item !== undefined) out.push(item);
    }
    return out;
  }

  /**
   * A skewed size in [min, max]: most draws near the low end, a long tail towards `max`
   * (the product of two uniforms, integer-only), the shape of real tool outputs and messages.
   */
  skewed(min: number, max: number): number {
    const span = max - min;
    const a = this.int(0, 1000);
    const b = this.int(0, 1000);
    return min + Math.floor((span * a * b) / 1_000_000);
  }

  /** `length` characters drawn from `alphabet`. */
  chars(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[this.int(0, alphabet.length - 1)] ?? '';
    return out;
  }

  /** An independent stream for one aspect of generation, derived from this one and a label. */
  fork(label: string): Rng {
    return new Rng(hashSeed(label, this.int(-0x80000000, 0x7fffffff)));
  }
}
