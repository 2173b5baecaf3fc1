// `--import` this into a CLI child (test/ingest/run-pack.test.ts): the process kills itself with
// SIGKILL after appending the first part of a segment to a run pack, as a crash or a kill -9 would.
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';

const open = fsp.open;
fsp.open = async (path, flags, ...rest) => {
  const handle = await open(path, flags, ...rest);
  if (flags === 'a' && /run-[^/\\]*\.pack$/.test(String(path))) {
    handle.writev = async (buffers) => {
      await handle.write(buffers[0]);
      process.kill(process.pid, 'SIGKILL');
      await new Promise(() => undefined);
    };
  }
  return handle;
};
syncBuiltinESMExports();
