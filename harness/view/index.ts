import { EXPORT_DETAIL_BUDGET_CHARS, viewHtml } from './html.ts';
import { loadView, type ViewOptions } from './load-view.ts';
import { pageScript } from './page-script.ts';

export { serveView, type ViewServer } from './server.ts';
export { ViewFileError } from './load.ts';
export { runsVersion } from './history.ts';
export { runDirs } from './load.ts';
export { ServedViews } from './served.ts';
export type { ViewOptions } from './load-view.ts';

/**
 * The viewer's page over the given paths as one self-contained HTML document, every case's detail in it up to the
 * detail budget (`--export`; html.ts says what it leaves out). The suites a run names must be registered (the CLI
 * loads the built-in ones).
 */
export async function buildViewPage(
  paths: readonly string[],
  o: ViewOptions = {},
): Promise<{ html: string; runs: number; cases: number; problems: number }> {
  const { data, details } = loadView(paths, o);
  const html = viewHtml(data, details, await pageScript(), o.detailBudget ?? EXPORT_DETAIL_BUDGET_CHARS);
  return {
    html,
    runs: data.runs.length,
    cases: data.runs.reduce((n, r) => n + r.rows.length, 0),
    problems: data.runs.reduce((n, r) => n + r.problems.length, 0),
  };
}
