import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunConfig } from './config.ts';

/** `--out-dir`, else `results/<suite>/<style>/` under the working directory. */
export function resolveOutDir(cfg: RunConfig, suite: string, style: string): string {
  return resolve(cfg.outDir ?? join('results', suite, style));
}

const MARKER = '.toolgauge-run';

/**
 * Get an output directory ready for this run, once per run even when several test files (or workers) ask: a fresh
 * run empties it, a resumed run keeps it (after `onResume` tidies it). The first caller claims the run with an
 * exclusive-create lock file. Returns true for the caller that prepared it.
 */
export function prepareOutDir(dir: string, runId: string, resume: boolean, onResume?: (dir: string) => void): boolean {
  mkdirSync(dir, { recursive: true });
  const marker = join(dir, MARKER);
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === runId) return false;
  const lockName = `${MARKER}.${runId}.lock`;
  try {
    closeSync(openSync(join(dir, lockName), 'wx'));
  } catch {
    return false;
  }
  for (const name of readdirSync(dir)) {
    if (name === lockName) continue;
    if (resume && !name.startsWith(MARKER)) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
  }
  if (resume) onResume?.(dir);
  // The marker is written last: a run killed while preparing simply prepares again.
  writeFileSync(marker, runId);
  rmSync(join(dir, lockName), { force: true });
  return true;
}
