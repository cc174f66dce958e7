import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { lstatOrNull } from '../core/nofollow.ts';
import { keptRunNames, runHistory } from '../kit/run-history.ts';
import type { HistoryView } from './model.ts';

/**
 * The viewer's side of a run's history (harness/kit/run-history.ts): the kept runs of each run on the page, which of
 * them the page shows in place of the latest (`?open=<slot>/<name>` on the served page), and a version of everything
 * the page shows, which the open page polls to reload when a new run is written.
 */

/** A kept run's folder name (`2025-01-02T03-04-05.678Z`, maybe `-2`): nothing else may be opened. */
const KEPT_NAME = /^[0-9TZ.-]+$/;

/** `open` query values, each `<slot>/<name>`: the page's slot (0-based) → the kept run shown there. */
export function parseOpen(values: readonly string[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const v of values) {
    const m = /^(\d{1,4})\/(.+)$/.exec(v);
    if (m && KEPT_NAME.test(m[2]!)) out.set(Number(m[1]), m[2]!);
  }
  return out;
}

/**
 * The directories the page shows: each run directory, or the kept run `open` names for its slot when the directory
 * keeps a run of that name (anything else is ignored: only listed runs open). `base` is the run directory whose
 * history each slot lists.
 */
export function openedDirs(dirs: readonly string[], open: Map<number, string>): Array<{ dir: string; base: string }> {
  return dirs.map((base, slot) => {
    const name = open.get(slot);
    const kept = name ? runHistory(base).find((h) => h.name === name) : undefined;
    return { dir: kept?.dir ?? base, base };
  });
}

/** The history the page lists for slot `slot`: every kept run of `base`, the one shown marked. */
export function historyViews(base: string, shown: string, slot: number, served: boolean): HistoryView[] {
  return runHistory(base).map((h) => ({
    name: h.name,
    startedAt: h.startedAt,
    model: h.model,
    passRate: h.passRate,
    problem: h.problem,
    shown: h.dir === shown,
    open: served ? `${slot}/${h.name}` : null,
  }));
}

/**
 * A version of the run directories: their summary.json's size and time and their kept runs' names. It changes when a
 * run ends (its summary is written, a run is kept), so an open page that polls it reloads then.
 */
export function runsVersion(dirs: readonly string[]): string {
  const hash = createHash('sha256');
  for (const d of dirs) {
    const st = lstatOrNull(join(d, 'summary.json'));
    hash.update(`${d}\0${st ? `${st.size}:${st.mtimeMs}` : '-'}\0`);
    hash.update(keptRunNames(d).join('\0'));
    hash.update('\n');
  }
  return hash.digest('hex').slice(0, 16);
}
