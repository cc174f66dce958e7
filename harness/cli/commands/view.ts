import { dirname, resolve } from 'node:path';
import '../../builtin/index.ts';
import { UsageError } from '../../core/errors.ts';
import { FileRefused } from '../../core/nofollow.ts';
import { escapeTerminal } from '../../core/terminal.ts';
import {
  countsLine,
  type ExportedPage,
  exportReport,
  exportViewPage,
  runDirs,
  runsVersion,
  ServedViews,
  serveView,
  ViewFileError,
  type ViewOptions,
} from '../../view/index.ts';
import { flagSchemas, parseFlags } from '../../kit/flags/flags.ts';
import { assertOutDirWritable } from '../../kit/out-dir-check.ts';

export const USAGE = `toolgauge view [DIR …] [--port N] [--label NAME …] [--allow-partial]
  a results viewer in the browser, served on 127.0.0.1 (nothing from the network): each run's header, metrics with
  CIs, breakdowns, gate and charts; the case ledger (search, filters, sort over every case; its rows fetched from
  the server a page at a time); each case's input, expected and predicted, scorers, transcript and evidence (read
  from the run folder when the case is opened); two or more runs side by side with the paired verdicts of report
  --compare; each run's history (the runs \`eval --watch\` kept: date, pass rate, model), any of them opened in its
  place; the open page reloads when a run ends. DIR: run directories, or folders of them (default: results)
toolgauge view [DIR …] --export FILE.html   the same page as one static file (e.g. a CI artifact), written as the
  runs are read: the first cases of the ledger with their details, up to 64 MiB (the page and the output say how many
  cases it left out; serving the runs shows every case)`;

/** `--export FILE`: the page written to the file; what it holds and what it left out said on stdout. */
async function exportPage(paths: string[], file: string, opts: ViewOptions): Promise<number> {
  // Before the runs are read: a file where its folder should be is one line, not a stack after the reading.
  assertOutDirWritable('toolgauge view: --export', dirname(file));
  let page: ExportedPage;
  try {
    page = await exportViewPage(paths, file, opts);
  } catch (err) {
    if (err instanceof ViewFileError) throw new UsageError(`toolgauge view: ${err.message}`);
    if (err instanceof FileRefused) throw new UsageError(`toolgauge view: --export: ${err.message}`);
    throw err;
  }
  for (const line of exportReport(page, paths)) process.stdout.write(escapeTerminal(line) + '\n');
  return 0;
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'view',
    argv,
    {
      port: { type: 'string', schema: flagSchemas.nonNegativeInt.max(65535, 'must be <= 65535') },
      export: { type: 'string' },
      label: { type: 'string', multiple: true },
      'allow-partial': { type: 'boolean' },
    },
    true,
  );
  const paths = positionals.length ? positionals : ['results'];
  const opts = { labels: values.label as string[] | undefined, allowPartial: Boolean(values['allow-partial']) };
  if (values.export) return exportPage(paths, resolve(String(values.export)), opts);
  // Served, the page is paged: the ledger's rows and each case's detail are fetched from the server (view/served.ts).
  const views = new ServedViews(paths, opts);
  const build = async (open: string[]) => {
    try {
      return await views.build(open);
    } catch (err) {
      if (err instanceof ViewFileError) throw new UsageError(`toolgauge view: ${err.message}`);
      throw err;
    }
  };
  // Read once before serving: a path that is not a run is a usage error now, not a broken page later.
  const first = await build([]);
  const summary = countsLine(first);
  let initial: string | null = first.html;
  const server = await serveView(
    async (query) => {
      // The first load gets the page already built; every later one reads the directories again.
      const open = query.getAll('open');
      const html = (!open.length && initial) || (await build(open)).html;
      initial = null;
      return html;
    },
    {
      port: values.port as number | undefined,
      version: () => {
        try {
          return runsVersion(runDirs(paths));
        } catch (err) {
          return `unreadable: ${(err as Error).message}`;
        }
      },
      api: (path, query) => views.answer(path, query),
      onError: (e) => process.stderr.write(escapeTerminal(`toolgauge view: ${e.message}`) + '\n'),
    },
  );
  process.stdout.write(escapeTerminal(`toolgauge view: ${server.url} (${summary}); Ctrl-C to stop`) + '\n');
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await server.close();
  return 0;
}
