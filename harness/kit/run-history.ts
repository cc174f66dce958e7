import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { firstZodIssue } from '../core/errors.ts';
import { lstatOrNull, mkdirNoFollow, readFileChecked, writeAtomic } from '../core/nofollow.ts';
import { flattenMetrics, SummarySchema } from '../report/summary.ts';
import { LOCK_FILE } from './lock.ts';
import { MARKER } from './outdir.ts';

/**
 * A run's history: `toolgauge eval --watch` keeps each finished run of an eval as a copy of its output directory in
 * `<outDir>/runs/<UTC time>/`, while the latest run stays in `<outDir>` itself, where a one-off run writes (so
 * `report DIR`, `--resume` and gates read it as always). A fresh run empties only its own files, so `runs/` survives.
 */
export const RUNS_DIR = 'runs';

/** A folder name for the time `at`, in UTC, that sorts as the times do: `2025-01-02T03-04-05.678Z`. */
export function runStamp(at: Date): string {
  return at.toISOString().replace(/:/g, '-');
}

/** What an output directory holds that is not the run's result: the history itself, the lock, the run marker. */
function notCopied(name: string): boolean {
  return name === RUNS_DIR || name === LOCK_FILE || name.startsWith(MARKER);
}

/**
 * Copy the finished run in `outDir` to `outDir/runs/<stamp>/` and return that folder. Only regular files and folders
 * are copied (a link is left out, never followed); a name already taken gets `-2`, `-3`, … appended.
 */
export function keepRun(outDir: string, at: Date): string {
  const stamp = runStamp(at);
  let dest = join(outDir, RUNS_DIR, stamp);
  for (let n = 2; lstatOrNull(dest); n++) dest = join(outDir, RUNS_DIR, `${stamp}-${n}`);
  mkdirNoFollow(outDir, dest);
  copyTree(outDir, outDir, dest, true);
  return dest;
}

/** The folders and regular files under `from` into `to` (made inside `outDir`, without following a link). */
function copyTree(outDir: string, from: string, to: string, top: boolean): void {
  for (const e of readdirSync(from, { withFileTypes: true })) {
    if (top && notCopied(e.name)) continue;
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.isDirectory()) {
      mkdirNoFollow(outDir, dst);
      copyTree(outDir, src, dst, false);
    } else if (e.isFile()) {
      const data = readFileChecked(src, { root: outDir });
      if (data) writeAtomic(dst, data);
    }
  }
}

/** One kept run of an eval, as the viewer's history lists it. */
export interface HistoryEntry {
  /** The run's folder (`<outDir>/runs/<stamp>`). */
  dir: string;
  /** The folder's name: the run's UTC time. */
  name: string;
  startedAt: string | null;
  model: string | null;
  passRate: number | null;
  /** Why the run's summary.json could not be read (the run is still listed). */
  problem: string | null;
}

/** The folder names of the kept runs of `outDir`, newest first; none when it has no `runs/` folder. */
export function keptRunNames(outDir: string): string[] {
  const runs = join(outDir, RUNS_DIR);
  if (!lstatOrNull(runs)?.isDirectory()) return [];
  return readdirSync(runs, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .reverse();
}

/** The kept runs of the output directory `outDir`, newest first, each with what its summary.json says. */
export function runHistory(outDir: string): HistoryEntry[] {
  return keptRunNames(outDir).map((name) => historyEntry(join(outDir, RUNS_DIR, name), name));
}

function historyEntry(dir: string, name: string): HistoryEntry {
  const entry: HistoryEntry = { dir, name, startedAt: null, model: null, passRate: null, problem: null };
  let text: string | null;
  try {
    text = readFileChecked(join(dir, 'summary.json'), { root: dir })?.toString('utf8') ?? null;
  } catch (err) {
    return { ...entry, problem: `summary.json: ${(err as Error).message}` };
  }
  if (text === null) return { ...entry, problem: 'no summary.json' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ...entry, problem: `summary.json: not valid JSON (${(err as Error).message})` };
  }
  const parsed = SummarySchema.safeParse(json);
  if (!parsed.success) {
    const { field, message } = firstZodIssue(parsed.error);
    return { ...entry, problem: `summary.json${field ? `: field ${field}` : ''}: ${message}` };
  }
  const s = parsed.data;
  return {
    ...entry,
    startedAt: s.header.started_at,
    model: s.header.model,
    passRate: flattenMetrics(s.metrics).pass_rate?.value ?? null,
  };
}
