import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';

/**
 * Whether a run could write its output directory, checked before the first model request (a run that learns it
 * only at the end has paid for every call): the directory, or its nearest existing ancestor, must be a directory
 * in which a file can be created. Creates no directory; the probe file is removed at once. Returns the reason it
 * cannot, or null. Works for root too: a file in the path or a read-only mount fails as it would for the run.
 */
export function outDirProblem(dir: string): string | null {
  const target = resolve(dir);
  let at = target;
  for (;;) {
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Missing, or under a file: the nearest existing ancestor tells which.
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(at) !== at) {
        at = dirname(at);
        continue;
      }
      return `${at}: ${code ?? (err as Error).message}`;
    }
    if (!isDir) return `${at} is not a directory`;
    break;
  }
  const probe = join(at, `.toolgauge-write-check-${process.pid}-${Date.now()}`);
  try {
    closeSync(openSync(probe, 'wx'));
  } catch (err) {
    return `cannot create a file in ${at} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  rmSync(probe, { force: true });
  return null;
}

/** The run's output directory cannot be written: a usage error (one line, exit code 2) before anything runs. */
export function assertOutDirWritable(who: string, dir: string): void {
  const problem = outDirProblem(dir);
  if (problem) throw new UsageError(`${who}: cannot write the output directory ${resolve(dir)}: ${problem}`);
}
