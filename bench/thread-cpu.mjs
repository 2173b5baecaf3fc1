// CPU time of a node process by thread, for the benches (Linux only): loaded with
// `NODE_OPTIONS=--import=<this file>` and `CACHECOST_BENCH_THREAD_CPU=<a file to write>`, it reads
// /proc/self/task/*/stat whenever the main thread's event loop turns (every 5 ms at most) and once
// more at exit, and writes the CPU milliseconds (user + system) of three groups of threads:
// - `main`: the main JavaScript thread;
// - `helpers`: the threads there before the program runs (V8's platform workers, which compile
//   optimized code and help the garbage collector for every isolate, and Node's own);
// - `late`: threads started by the program (worker threads, libuv's pool).
// A worker thread stopped before the exit counts for what it had used by the last reading: the
// main thread turns its event loop once per session while a build worker runs
// (src/ingest/claude-code/build-ahead.ts), so after the worker's last session at the latest.
// On a machine shared with other work, wall time moves with the load; these figures move far less.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const out = process.env['CACHECOST_BENCH_THREAD_CPU'];
if (isMainThread && out !== undefined && out !== '') {
  // /proc counts in clock ticks: 100 per second on Linux.
  const TICK_MS = 10;
  const threads = new Map();
  // Fields after the command name: utime is the 14th field of stat, stime the 15th.
  const fieldsOf = (text) => text.slice(text.lastIndexOf(')') + 2).split(' ');
  // This module runs before the program: the threads there now are Node's and V8's.
  const atStart = new Set(readdirSync('/proc/self/task'));
  const read = () => {
    let tids;
    try {
      tids = readdirSync('/proc/self/task');
    } catch {
      return;
    }
    for (const tid of tids) {
      let fields;
      try {
        fields = fieldsOf(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'));
      } catch {
        continue; // ended meanwhile
      }
      threads.set(tid, (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    }
  };
  read();
  setInterval(read, 5).unref();
  process.on('exit', () => {
    read();
    const sums = { main: 0, helpers: 0, late: 0 };
    for (const [tid, ms] of threads) {
      if (tid === String(process.pid)) sums.main += ms;
      else if (atStart.has(tid)) sums.helpers += ms;
      else sums.late += ms;
    }
    writeFileSync(out, JSON.stringify(sums));
  });
}
