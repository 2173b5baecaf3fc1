/**
 * Application log output (what `cat` of a worker's log file prints): timestamped, levelled,
 * structured lines with varied fields, occasional warnings and errors with stack traces. Used
 * for the huge tool results of the overflow scenario and for pasted logs in user prompts.
 */
import { pastTense, plural } from './english.js';
import { camel } from './names.js';
import type { PackageInfo, Repo } from './repo.js';
import type { Rng } from './rng.js';
import { nodeStackTrace } from './test-output.js';
import { ADJECTIVES, NOUNS, VERBS } from './vocab.js';

function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}

/** Log lines starting at `startMs` until at least `targetChars` characters were produced. */
export function serviceLog(rng: Rng, repo: Repo, pkg: PackageInfo, startMs: number, targetChars: number): string {
  const service = pkg.dir.split('/')[1] ?? 'worker';
  const out: string[] = [];
  let chars = 0;
  let t = startMs;
  let batch = rng.int(1000, 90000);
  while (chars < targetChars) {
    t += rng.skewed(1, 4000);
    const level = rng.weighted<string>([
      ['INFO', 78],
      ['DEBUG', 12],
      ['WARN', 7],
      ['ERROR', 3],
    ]);
    let line: string;
    if (level === 'ERROR') {
      const message = `${rng.pick(VERBS)} ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} failed: ${rng.pick(['duplicate key value violates unique constraint', 'socket hang up', 'deadline exceeded', 'invalid checksum', 'lock wait timeout exceeded', 'payload too large'])} (${rng.pick(NOUNS)}=${rng.int(1, 999999)})`;
      line = `${isoAt(t)} ERROR [${service}] ${message}\n${nodeStackTrace(rng, repo, pkg, message)}`;
    } else {
      batch += rng.int(1, 3);
      const fields = [
        `batch=${batch}`,
        `shard=${rng.int(0, 15)}`,
        `${camel([rng.pick(NOUNS)])}=${rng.int(1, 99999)}`,
        `rows=${rng.skewed(1, 5000)}`,
        `durationMs=${rng.skewed(1, 9000)}`,
      ];
      if (rng.chance(40))
        fields.push(
          `${camel([rng.pick(ADJECTIVES), rng.pick(NOUNS)])}=${rng.pick(['true', 'false', String(rng.int(0, 64))])}`,
        );
      if (rng.chance(25))
        fields.push(
          `source=s3://${service}-raw/${rng.int(2024, 2026)}/${String(rng.int(1, 12)).padStart(2, '0')}/${rng.pick(NOUNS)}-${rng.int(1, 9999)}.ndjson.gz`,
        );
      if (rng.chance(20)) fields.push(`tenant=${rng.pick(NOUNS)}-${rng.int(100, 999)}`);
      const message =
        level === 'WARN'
          ? `${rng.pick(['retrying', 'slow', 'skipping', 'throttled'])} ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)} (attempt ${rng.int(1, 5)}/5)`
          : `${pastTense(rng.pick(VERBS))} ${rng.pick(ADJECTIVES)} ${plural(rng.pick(NOUNS))}`;
      line = `${isoAt(t)} ${level.padEnd(5, ' ')} [${service}] ${message} ${fields.join(' ')}`;
    }
    out.push(line);
    chars += line.length + 1;
  }
  return out.join('\n');
}
