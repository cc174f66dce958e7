// Starting a sandbox worker process. node:child_process gives the pool everything it uses (pipes, extra
// descriptors, an exact environment, the exit); execa, which the pool used before, is about a hundred modules
// that cost a run's main process 0.1 s to load before its first worker could start.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { endWithHost } from '../core/end-with-host.ts';

export interface WorkerExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why the process could not be started at all (no exit code nor signal then). */
  spawnError?: string;
}

export interface SpawnedWorker {
  child: ChildProcessWithoutNullStreams;
  /** Settles once the process has ended and its output streams are closed; never rejects. */
  exited: Promise<WorkerExit>;
}

/**
 * Spawn `file args` with exactly `env` (nothing inherited), pipes for stdin, stdout and stderr, and `fds` passed on as
 * descriptors 3, 4, …. A worker still running when the host process exits — or dies of a signal — is killed with it.
 */
export function spawnWorker(
  file: string,
  args: string[],
  env: Record<string, string>,
  fds: number[] = [],
): SpawnedWorker {
  const stdio = ['pipe', 'pipe', 'pipe', ...fds] as unknown as ['pipe', 'pipe', 'pipe'];
  const child = spawn(file, args, { env, stdio });
  endWithHost(child);
  const exited = new Promise<WorkerExit>((resolve) => {
    let spawned = false;
    child.once('spawn', () => {
      spawned = true;
    });
    child.once('error', (err) => {
      if (spawned) return; // a failed kill: the process is still there, and 'close' will follow its end
      resolve({ exitCode: null, signal: null, spawnError: `could not start ${file}: ${err.message}` });
    });
    child.once('close', (exitCode, signal) => {
      resolve({ exitCode, signal });
    });
  });
  return { child, exited };
}
