import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { escapeTerminal } from '../../core/terminal.ts';
import '../../builtin/index.ts';
import { finalizeSuite } from '../../kit/finalize.ts';
import { flagSchemas, parseFlags } from '../../kit/flags/flags.ts';
import { withDirLocks } from '../../kit/lock.ts';
import { assertOutDirWritable } from '../../kit/out-dir-check.ts';
import { suiteNamed } from '../../kit/registry.ts';
import { CompareRefused } from '../../report/compare.ts';
import { aggregatorOf, loadSavedRun, writeComparison } from '../compare-saved.ts';

export const USAGE = `toolgauge report DIR [DIR…] [--gate EXPR]      re-aggregate saved runs from their instances.jsonl
  (summary.json, report.md and charts rewritten with the run's original header; the gate decides the exit code)
toolgauge report BASE OTHER… --compare [--allow-partial] [--label NAME …] [--out-dir DIR]
  paired comparison of every run with the first on the instances both ran (bootstrap CI of the difference, exact
  McNemar or sign-flip test, Holm-corrected): comparison.md, comparison.json, comparison.svg in DIR (results/compare)`;

/**
 * `toolgauge report DIR [DIR…] [--compare] [--allow-partial] [--gate EXPR] [--out-dir DIR]`: re-aggregate saved
 * runs from their instances.jsonl (rewriting summary.json, report.md and charts with the original header), and
 * with --compare, a paired comparison of every run against the first.
 */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'report',
    argv,
    {
      compare: { type: 'boolean' },
      'allow-partial': { type: 'boolean' },
      gate: { type: 'string', schema: flagSchemas.gate },
      'out-dir': { type: 'string' },
      label: { type: 'string', multiple: true },
    },
    true,
  );
  if (!positionals.length) throw new UsageError('toolgauge report: give at least one run directory');
  // Before any run is read or re-aggregated: a comparison that cannot be written is one line, not a stack at the end.
  if (values.compare) assertOutDirWritable('toolgauge report --compare', compareDir(values));
  // Re-aggregating rewrites each directory's files: not while a run writes there (harness/kit/lock.ts). A directory
  // without summary.json is not locked: loadSavedRun says what is missing.
  const dirs = positionals.map((d) => resolve(d)).filter((d) => existsSync(join(d, 'summary.json')));
  try {
    return await withDirLocks(dirs, () => reportOn(positionals, values));
  } catch (err) {
    if ((err as Error).name === 'DirLocked') throw new UsageError(`toolgauge report: ${(err as Error).message}`);
    throw err;
  }
}

async function reportOn(positionals: string[], values: Record<string, unknown>): Promise<number> {
  const runs = positionals.map((d) => loadSavedRun(resolve(d), 'toolgauge report'));
  let failed = false;
  for (const r of runs) {
    const suite = r.summary.suite;
    const agg = aggregatorOf(suite);
    const seed = r.summary.header.seed;
    const f = finalizeSuite(suite, agg, r.metas, {
      header: r.summary.header,
      config: r.summary.config,
      seed,
      gate: values.gate as string | undefined,
      outDir: r.dir,
      recordFiles: suiteNamed(suite)?.recordFiles,
    });
    r.summary = f.summary;
    if (f.gate && !f.gate.passed) failed = true;
    if (!values.compare) process.stdout.write(escapeTerminal(agg.terminal(f.summary, r.dir), '\n\t') + '\n');
  }
  if (!values.compare) return failed ? 1 : 0;

  const outDir = compareDir(values);
  let written;
  try {
    written = writeComparison(runs, {
      outDir,
      labels: values.label as string[] | undefined,
      allowPartial: Boolean(values['allow-partial']),
    });
  } catch (err) {
    if (err instanceof CompareRefused) throw new UsageError(`toolgauge report --compare: ${err.message}`);
    throw err;
  }
  process.stdout.write(written.markdown + `\nwritten: ${written.path}\n`);
  return failed ? 1 : 0;
}

const compareDir = (values: Record<string, unknown>) =>
  resolve((values['out-dir'] as string | undefined) ?? join('results', 'compare'));
