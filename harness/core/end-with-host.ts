// Processes that must not outlive this process: killed (SIGKILL) when it exits, or dies of a signal (signal-exit,
// execa's own choice for the same job). A child this process spawned leaves the list when it closes; a process
// known only by its pid (an MCP server a library spawned) when its owner forgets it.
import type { ChildProcess } from 'node:child_process';
import { onExit } from 'signal-exit';

const liveChildren = new Set<ChildProcess>();
const livePids = new Set<number>();
let hooked = false;

function hook(): void {
  if (hooked) return;
  hooked = true;
  onExit(() => {
    for (const c of liveChildren) c.kill('SIGKILL');
    for (const pid of livePids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  });
}

/** Kill `child` with SIGKILL if it is still running when this process ends. */
export function endWithHost(child: ChildProcess): void {
  hook();
  liveChildren.add(child);
  child.once('close', () => liveChildren.delete(child));
  child.once('error', () => {
    if (child.pid === undefined) liveChildren.delete(child); // never started
  });
}

/** Kill the process `pid` with SIGKILL when this process ends, unless the returned function was called first. */
export function endPidWithHost(pid: number): () => void {
  hook();
  livePids.add(pid);
  return () => livePids.delete(pid);
}
