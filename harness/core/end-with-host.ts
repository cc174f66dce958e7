// Child processes that must not outlive this process: killed when it exits, or dies of a signal (signal-exit, execa's
// own choice for the same job). A child leaves the list when it closes.
import type { ChildProcess } from 'node:child_process';
import { onExit } from 'signal-exit';

const live = new Set<ChildProcess>();
let hooked = false;

/** Kill `child` with SIGKILL if it is still running when this process ends. */
export function endWithHost(child: ChildProcess): void {
  if (!hooked) {
    hooked = true;
    onExit(() => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  live.add(child);
  child.once('close', () => live.delete(child));
  child.once('error', () => {
    if (child.pid === undefined) live.delete(child); // never started
  });
}
