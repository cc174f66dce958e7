import { loadRunDir, PAGE_TRACE_BUDGET_BYTES, runDirs } from './load.ts';
import { viewData } from './data.ts';
import { viewHtml } from './html.ts';
import { pageScript } from './page-script.ts';
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
  const loaded = slots.map((s) => loadRunDir(s.dir, budget));
  const { data, details } = viewData(loaded, o);
  data.runs.forEach((r, i) => (r.history = historyViews(slots[i]!.base, slots[i]!.dir, i, !!o.served)));
  if (o.served) data.liveVersion = runsVersion(slots.map((s) => s.base));
  const html = viewHtml(data, details, await pageScript());
  return {
    html,
    runs: data.runs.length,
    cases: data.runs.reduce((n, r) => n + r.rows.length, 0),
    problems: data.runs.reduce((n, r) => n + r.problems.length, 0),
  };
}
