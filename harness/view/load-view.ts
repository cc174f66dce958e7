import { homedir } from 'node:os';
import type { Summary } from '../report/summary.ts';
import { viewData } from './data.ts';
import { historyViews, openedDirs, parseOpen, runsVersion } from './history.ts';
import { loadRunDir, ON_DEMAND, PAGE_TRACE_BUDGET_BYTES, runDirs, type CaseLocation } from './load.ts';
import type { CaseDetail, ViewData } from './model.ts';
import { pathRewrites, rewritePaths, viewBase } from './relative-paths.ts';

export interface ViewOptions {
  labels?: string[];
  allowPartial?: boolean;
  /** The served page: its `open` query values (`<slot>/<kept run>`: that kept run in place of the latest) and polling. */
  served?: { open: readonly string[] };
}

/** The runs on a page, read and mapped, their paths shown relative to the folder the viewer was opened on. */
export interface LoadedView {
  data: ViewData;
  details: CaseDetail[][];
  /** Each run's folder, summary and where each case's lines are (the served viewer reads a case again from them). */
  runs: Array<{ dir: string; summary: Summary | null; locations: Map<string, CaseLocation> }>;
  /** Absolute path prefix → what is shown (relative-paths.ts), for what is read later. */
  rewrites: Array<[string, string]>;
}

/**
 * The given paths (run directories, or folders of them) read, mapped and compared. With `rowsOnly`, each case's
 * detail is left for readCase (the served viewer's paged mode) and no trace budget applies: no detail is held.
 */
export function loadView(paths: readonly string[], o: ViewOptions = {}, rowsOnly = false): LoadedView {
  const slots = openedDirs(runDirs(paths), parseOpen(o.served?.open ?? []));
  // one budget for the page, whatever the number of runs on it
  const budget = { left: rowsOnly ? Number.POSITIVE_INFINITY : PAGE_TRACE_BUDGET_BYTES };
  const dirs = slots.map((s) => s.dir);
  const loaded = dirs.map((d) => loadRunDir(d, budget, { rowsOnly }));
  const built = viewData(loaded, o);
  built.data.runs.forEach((r, i) => (r.history = historyViews(slots[i]!.base, slots[i]!.dir, i, !!o.served)));
  if (o.served) built.data.liveVersion = runsVersion(slots.map((s) => s.base));
  // Paths are shown relative to the folder the viewer was opened on (harness/view/relative-paths.ts).
  const rewrites = pathRewrites({
    base: viewBase(
      paths,
      slots.map((s) => s.base),
    ),
    runDirs: dirs,
    home: homedir(),
    cwd: process.cwd(),
  });
  return {
    data: rewritePaths(built.data, rewrites),
    // a detail left for readCase is a shared placeholder: nothing to rewrite (and no copy of it per case)
    details: built.details.map((run) => run.map((d) => (d === ON_DEMAND ? d : rewritePaths(d, rewrites)))),
    runs: loaded.map((l) => ({ dir: l.dir, summary: l.summary, locations: l.locations })),
    rewrites,
  };
}
