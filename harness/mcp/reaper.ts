// Server processes must not outlive the run: each live server's pid is killed (SIGKILL) when this process exits or
// dies of a signal (signal-exit). A server leaves the list when it is closed.
import { onExit } from 'signal-exit';

const live = new Set<number>();
let hooked = false;

export function killAtExit(pid: number): void {
  if (!hooked) {
    hooked = true;
    onExit(() => {
      for (const p of live) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    });
  }
  live.add(pid);
}

export function forget(pid: number): void {
  live.delete(pid);
}
