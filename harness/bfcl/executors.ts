// The multi-turn executor of a run: one CPython worker per process (per class folder and interpreter), created
// when the first multi-turn case needs it and shared by every case of the run in this process — the worker runs
// each instance in a process of its own, forked from itself, and answers one request at a time. It is disposed
// when the process is about to exit (`beforeExit`), as the kit's runtime disposes its sandbox; should the process
// end without that event, the worker sees its stdin close and exits on its own.
import { PythonBfclExecutor } from './executor.ts';

const pool = new Map<string, PythonBfclExecutor>();
let hooked = false;

export function sharedExecutor(sourceDir: string, pythonPath: string, confine = true): PythonBfclExecutor {
  const key = JSON.stringify([sourceDir, pythonPath, confine]);
  let e = pool.get(key);
  if (!e) {
    e = new PythonBfclExecutor({ sourceDir, pythonPath, confine });
    pool.set(key, e);
  }
  if (!hooked) {
    hooked = true;
    process.once('beforeExit', () => void disposeExecutors());
  }
  return e;
}

/** Stop every worker (the next sharedExecutor call starts afresh). */
export async function disposeExecutors(): Promise<void> {
  const all = [...pool.values()];
  pool.clear();
  hooked = false;
  await Promise.all(all.map((e) => e.dispose()));
}
