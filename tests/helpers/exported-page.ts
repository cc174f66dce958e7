import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ExportedPage, exportViewPage, type ViewOptions } from '../../harness/view/index.ts';
import { tempDir } from './cli.ts';

/** `toolgauge view PATHS --export FILE` done in process: the page's text and what the export said of it. */
export async function exportedPage(
  paths: readonly string[],
  o: ViewOptions & { budget?: number } = {},
): Promise<ExportedPage & { html: string }> {
  const file = join(tempDir('view-export'), 'view.html');
  const page = await exportViewPage(paths, file, o);
  return { ...page, html: readFileSync(file, 'utf8') };
}
