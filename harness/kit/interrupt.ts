import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { readTextChecked } from '../core/nofollow.ts';
import { readJournal } from './journal.ts';
import { MARKER } from './outdir.ts';

/**
 * What an interrupted run (Ctrl-C) says on its way out: how many instances it kept, where, and the command that
 * resumes it. Finished instances are those in the journal of each output directory this run claimed (its marker
 * names the run id): they are what `--resume` skips.
 */

export interface Kept {
  dir: string;
  finished: number;
}

/** `outDir` and the folders directly in it (`results/` holds one folder per eval) that this run wrote to. */
export function keptBy(outDir: string, runId: string): Kept[] {
  const root = resolve(outDir);
  let subs: string[] = [];
  try {
    subs = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(root, e.name))
      .sort();
  } catch {
    // nothing written yet
  }
  const out: Kept[] = [];
  for (const dir of [root, ...subs]) {
    let marker: string | null = null;
    try {
      marker = readTextChecked(join(dir, MARKER), { root: dir });
    } catch {
      continue; // a planted link or unreadable marker: not this run's folder
    }
    if (marker?.trim() !== runId) continue;
    let finished = 0;
    try {
      finished = readJournal(dir).size;
    } catch {
      // an unreadable journal keeps nothing a resume could use
    }
    out.push({ dir, finished });
  }
  return out;
}

/** One command-line word as a POSIX shell reads it back. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The command that resumes the run: the same words, with `--resume` added unless it is there. */
export function resumeCommand(argv: readonly string[]): string {
  const words = argv.includes('--resume') ? argv : [...argv, '--resume'];
  return ['toolgauge', ...words].map(shellWord).join(' ');
}

/** The one line printed on SIGINT. `cwd`: folders are shown relative to it. */
export function interruptLine(command: string, kept: readonly Kept[], resume: string, cwd: string): string {
  const shown = (d: string) => relative(cwd, d) || '.';
  const n = kept.reduce((a, k) => a + k.finished, 0);
  const where = kept.length ? ` in ${kept.map((k) => shown(k.dir)).join(', ')}` : '';
  return `${command}: interrupted; kept ${n} finished instance${n === 1 ? '' : 's'}${where}; resume with: ${resume}`;
}

/**
 * The command line's SIGINT line for a run writing in or under `outDir`: the resume command repeats this process's
 * own words (`toolgauge eval …`, `toolgauge toolhop …`, a `--config` file included).
 */
export function cliInterruptLine(
  command: string,
  outDir: string,
  argv: readonly string[] = process.argv.slice(2),
  cwd: string = process.cwd(),
): (plan: { runId: string }) => string {
  return (plan) => interruptLine(command, keptBy(outDir, plan.runId), resumeCommand(argv), cwd);
}
