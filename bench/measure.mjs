// One way to time a child node process for the benches: wall time, CPU time (user + system) and
// peak RSS from `/usr/bin/time`, and the child's stdout; the main thread's CPU time so far, for
// the benches that time passes in one process; and the median of a run's figures.
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** Runs `node script ...argv` under /usr/bin/time; resolves to { ms, cpuMs, rssMb, stdout }, rejects on a non-zero exit. */
export function measure(script, argv, env = {}) {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', process.execPath, script, ...argv], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout = [];
    const stderr = [];
    child.stdout.on('data', (chunk) => stdout.push(chunk));
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const errText = Buffer.concat(stderr).toString('utf8').trim().split('\n');
      const [user, system, rssKb] = (errText.at(-1) ?? '').split(' ').map(Number);
      if (code !== 0)
        return reject(new Error(`${script} ${argv.join(' ')} exited ${code}: ${errText.slice(-3).join(' | ')}`));
      resolvePromise({
        ms,
        cpuMs: (user + system) * 1000,
        rssMb: rssKb / 1024,
        stdout: Buffer.concat(stdout).toString('utf8'),
      });
    });
  });
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Main-thread CPU milliseconds so far (user + system; Linux, /proc counts 100 ticks per second). */
export function threadCpuMs() {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
