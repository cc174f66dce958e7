import { acquireDirLock, releaseDirLock } from './lock.ts';
import { prepareOutDir } from './outdir.ts';

/**
 * A merge of blob reports (`--merge-reports`) takes its suites' folders as a fresh run takes its own: every folder's
 * lock for the run first (a folder in use refuses the merge before any folder is touched), then each prepared as a
 * fresh run's first instance prepares it (outdir.ts): the kit's and the suite's outputs of an earlier run removed and
 * the run's marker written; kept runs (`runs/`) and files no run wrote stay. The run's end gives the locks back
 * (run-end.ts); on a throw here, the locks this call took are given back before it propagates.
 */
export function claimMergedDirs(
  dirs: ReadonlyArray<{ dir: string; outputs: readonly string[] }>,
  runId: string,
  pid = process.pid,
): void {
  const taken: string[] = [];
  try {
    // A lock the run holds already (a suite command's launcher claimed its folder) is joined, and stays its holder's.
    for (const d of dirs) if (acquireDirLock(d.dir, runId, pid)) taken.push(d.dir);
    for (const d of dirs) prepareOutDir(d.dir, runId, 'fresh', d.outputs);
  } catch (err) {
    for (const dir of taken) releaseDirLock(dir, runId);
    throw err;
  }
}
