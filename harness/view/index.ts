export { countsLine, EXPORT_PAGE_BUDGET_BYTES, exportReport, exportViewPage, type ExportedPage } from './export.ts';
export { serveView, type ViewServer } from './server.ts';
export { ViewFileError } from './load.ts';
export { runsVersion } from './history.ts';
export { runDirs } from './load.ts';
export { ServedViews } from './served.ts';
export type { ViewOptions } from './load-view.ts';
