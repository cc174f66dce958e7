import { closeSync, lstatSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunConfig } from '../core/config.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import { readTextChecked, refuseLink } from '../core/nofollow.ts';
import { RUN_FILE } from './fingerprint.ts';
import { JOURNAL } from './journal.ts';

/** The kit's own files in every output directory. */
export const KIT_OUTPUTS = [JOURNAL, 'summary.json', 'report.md', 'charts', 'traces', RUN_FILE] as const;

export const MARKER = '.toolgauge-run';

/** `--out-dir`, else `results/<suite>/<style>/` under the working directory. */
export function defaultOutDir(outDir: string | undefined, ...parts: string[]): string {
  return resolve(outDir ?? join('results', ...parts));
}

/**
 * A describeEval eval's folder: `--out-dir` itself when the run has this one eval, `<out-dir>/<eval name>/` when it
 * has several (their parent, as `results/` is by default), then the model's folder of a `--model a,b` run.
 */
export function evalOutDir(run: Pick<RunConfig, 'outDir' | 'outDirHoldsEvals' | 'modelFolder'>, name: string): string {
  const dir =
    run.outDir === undefined ? join('results', name) : run.outDirHoldsEvals ? join(run.outDir, name) : run.outDir;
  return join(resolve(dir), run.modelFolder ?? '');
}

/**
 * How a run treats what an earlier run left: `fresh` empties the files this suite writes (and only those — never
 * other files or folders in the directory), `resume` keeps them (finished instances are not run again), `merge`
 * keeps them and replaces the instances it runs again (a `-t` re-run of a few instances).
 */
export type OutDirMode = 'fresh' | 'resume' | 'merge';

/**
 * Get an output directory ready for this run, once per run even when several test files ask: the first caller
 * claims the run with an exclusive-create lock file. Called when the first instance runs, never at collection, so
 * `vitest list` and UI discovery leave results alone. Returns true for the caller that prepared it.
 */
export function prepareOutDir(
  dir: string,
  runId: string,
  mode: OutDirMode,
  outputs: readonly string[],
  onResume?: (dir: string) => void,
): boolean {
  mkdirSync(dir, { recursive: true });
  const marker = join(dir, MARKER);
  refuseLink(marker);
  if (readTextChecked(marker, { root: dir })?.trim() === runId) return false;
  const lockName = `${MARKER}.${runId}.lock`;
  try {
    closeSync(openSync(join(dir, lockName), 'wx')); // O_CREAT|O_EXCL: never through a link
  } catch {
    return false;
  }
  if (mode === 'fresh') {
    for (const name of new Set([...KIT_OUTPUTS, ...outputs])) {
      const p = join(dir, name);
      // lstat: a symlink planted in place of an output is removed, never followed.
      if (exists(p)) rmSync(p, { recursive: true, force: true });
    }
  } else onResume?.(dir);
  // The marker is written last: a run killed while preparing simply prepares again.
  writeFileAtomic(marker, runId, dir);
  rmSync(join(dir, lockName), { force: true });
  return true;
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
