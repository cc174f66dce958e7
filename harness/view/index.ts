import { homedir } from 'node:os';
import { loadRunDir, PAGE_TRACE_BUDGET_BYTES, runDirs } from './load.ts';
import { viewData } from './data.ts';
import { viewHtml } from './html.ts';
import { pageScript } from './page-script.ts';
import { relativeView, viewBase } from './relative-paths.ts';
import { historyViews, openedDirs, parseOpen, runsVersion } from './history.ts';

export { serveView, type ViewServer } from './server.ts';
export { ViewFileError } from './load.ts';
export { runsVersion } from './history.ts';
export { runDirs } from './load.ts';

export interface ViewOptions {
  labels?: string[];
  allowPartial?: boolean;
  /** The served page: its `open` query values (`<slot>/<kept run>`: that kept run in place of the latest) and polling. */
  served?: { open: readonly string[] };
}

/**
 * The viewer's page over the given paths (run directories, or folders of them): read, mapped, compared and written
 * as one self-contained HTML document. The suites a run names must be registered (the CLI loads the built-in ones).
 */
export async function buildViewPage(
  paths: readonly string[],
  o: ViewOptions = {},
): Promise<{ html: string; runs: number; cases: number; problems: number }> {
  const slots = openedDirs(runDirs(paths), parseOpen(o.served?.open ?? []));
  const budget = { left: PAGE_TRACE_BUDGET_BYTES }; // one for the page, whatever the number of runs on it
  const dirs = slots.map((s) => s.dir);
  const loaded = dirs.map((d) => loadRunDir(d, budget));
  const built = viewData(loaded, o);
  built.data.runs.forEach((r, i) => (r.history = historyViews(slots[i]!.base, slots[i]!.dir, i, !!o.served)));
  if (o.served) built.data.liveVersion = runsVersion(slots.map((s) => s.base));
  // Paths are shown relative to the folder the viewer was opened on (harness/view/relative-paths.ts).
  const { data, details } = relativeView(built.data, built.details, {
    base: viewBase(
      paths,
      slots.map((s) => s.base),
    ),
    runDirs: dirs,
    home: homedir(),
    cwd: process.cwd(),
  });
  const html = viewHtml(data, details, await pageScript());
  return {
    html,
    runs: data.runs.length,
    cases: data.runs.reduce((n, r) => n + r.rows.length, 0),
    problems: data.runs.reduce((n, r) => n + r.problems.length, 0),
  };
}
