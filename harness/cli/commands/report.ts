import { escapeTerminal } from '../../core/terminal.ts';
import { existsSync, mkdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { writeFileAtomic } from '../../core/jsonl.ts';
import { readTextChecked } from '../../core/nofollow.ts';
import {
  CompareRefused,
  comparisonChart,
  comparisonMarkdown,
  compareRuns,
  type RunOutcomes,
} from '../../report/compare.ts';
import { flattenMetrics, SummarySchema, validSummary, type Summary } from '../../report/summary.ts';
import '../../builtin/index.ts';
import { finalizeSuite } from '../../kit/finalize.ts';
import { genericAggregator, scoredMetaSchema } from '../../kit/generic.ts';
import { JOURNAL, verifiedJournal } from '../../kit/journal.ts';
import { withDirLocks } from '../../kit/lock.ts';
import { suiteNamed } from '../../kit/registry.ts';
import type { InstanceMetaBase, SuiteAggregator } from '../../kit/types.ts';
import { flagSchemas, parseFlags } from '../../kit/flags/flags.ts';

export const USAGE = `toolgauge report DIR [DIR…] [--gate EXPR]      re-aggregate saved runs from their instances.jsonl
  (summary.json, report.md and charts rewritten with the run's original header; the gate decides the exit code)
toolgauge report BASE OTHER… --compare [--allow-partial] [--label NAME …] [--out-dir DIR]
  paired comparison of every run with the first on the instances both ran (bootstrap CI of the difference, exact
  McNemar or sign-flip test, Holm-corrected): comparison.md, comparison.json, comparison.svg in DIR (results/compare)`;

interface SavedRun {
  dir: string;
  summary: Summary;
  metas: InstanceMetaBase[];
}

function loadRun(dir: string): SavedRun {
  const sp = join(dir, 'summary.json');
  let text: string | null;
  try {
    text = readTextChecked(sp, { root: dir }); // a FIFO or device in its place is refused, never waited on
  } catch (err) {
    throw new UsageError(`toolgauge report: ${(err as Error).message}`);
  }
  if (text === null)
    throw new UsageError(`toolgauge report: ${sp} not found (is ${dir} a toolgauge output directory?)`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`toolgauge report: ${sp}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = SummarySchema.safeParse(raw);
  if (!parsed.success)
    throw new UsageError(
      `toolgauge report: ${sp}: field ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
    );
  const summary = validSummary(raw);
  // The journal is checked as a resume checks it (schema, seal, record files); lines from an older toolgauge, which
  // have no seal, are re-aggregated as before, and counted on stderr.
  let metas: InstanceMetaBase[];
  try {
    // A suite this process does not know (a user's eval) is checked as its summary's config says it was scored.
    const schema = suiteNamed(summary.suite)?.metaSchema ?? scoredMetaSchema(summary.config);
    metas = [
      ...verifiedJournal(dir, summary.suite, schema, {
        unsealed: (n) =>
          process.stderr.write(
            `toolgauge report: ${join(dir, JOURNAL)}: ${n} line${n === 1 ? '' : 's'} without a seal (an older toolgauge, or rescore), not checked against the results files\n`,
          ),
      }).values(),
    ];
  } catch (err) {
    if (['JournalRefused', 'LinkRefused', 'FileRefused'].includes((err as Error).name))
      throw new UsageError(`toolgauge report: ${(err as Error).message}`);
    throw err;
  }
  return { dir, summary, metas };
}

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
  // Re-aggregating rewrites each directory's files: not while a run writes there (harness/kit/lock.ts). A directory
  // without summary.json is not locked: loadRun says what is missing.
  const dirs = positionals.map((d) => resolve(d)).filter((d) => existsSync(join(d, 'summary.json')));
  try {
    return await withDirLocks(dirs, () => reportOn(positionals, values));
  } catch (err) {
    if ((err as Error).name === 'DirLocked') throw new UsageError(`toolgauge report: ${(err as Error).message}`);
    throw err;
  }
}

async function reportOn(positionals: string[], values: Record<string, unknown>): Promise<number> {
  const runs = positionals.map((d) => loadRun(resolve(d)));
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

  const labels = (values.label as string[] | undefined) ?? [];
  const outcomes: RunOutcomes[] = runs.map((r, i) => ({
    label: labels[i] ?? `${r.summary.header.model} (${basename(r.dir)})`,
    dir: r.dir,
    suite: r.summary.suite,
    datasetSha256: r.summary.header.dataset?.sha256 ?? null,
    outcomes: aggregatorOf(r.summary.suite).outcomes(r.metas),
    config: r.summary.config,
  }));
  let comparisons;
  try {
    const agg = aggregatorOf(runs[0]!.summary.suite);
    // A suite may refuse a comparison its configs make meaningless (the probe: quantizations with different templates).
    const refusal = (
      agg as { compareGuard?: (runs: Array<{ dir: string; config: Record<string, unknown> }>) => string | null }
    ).compareGuard?.(runs.map((r) => ({ dir: r.dir, config: r.summary.config })));
    if (refusal) throw new CompareRefused(refusal);
    comparisons = compareRuns(outcomes, {
      allowPartial: Boolean(values['allow-partial']),
      comparableOn: agg.comparableOn ?? [],
      lowerIsBetter: agg.lowerIsBetter ?? [],
    });
  } catch (err) {
    if (err instanceof CompareRefused) throw new UsageError(`toolgauge report --compare: ${err.message}`);
    throw err;
  }
  const simulated = runs.some((r) => r.summary.notice);
  const md = comparisonMarkdown(comparisons, simulated ? runs.find((r) => r.summary.notice)!.summary.notice : null);
  const headline = Object.keys(outcomes[0]!.outcomes)[0]!;
  const chart = comparisonChart(
    runs.map((r, i) => ({
      label: outcomes[i]!.label,
      estimate: flattenMetrics(r.summary.metrics)[headline],
      note: i === 0 ? 'baseline' : comparisons[i - 1]!.results.find((x) => x.metric === headline)?.verdict,
    })),
    headline,
    simulated,
  );
  const outDir = resolve((values['out-dir'] as string | undefined) ?? join('results', 'compare'));
  mkdirSync(outDir, { recursive: true });
  writeFileAtomic(join(outDir, 'comparison.md'), `${md}\n![${headline} per run](comparison.svg)\n`);
  writeFileAtomic(join(outDir, 'comparison.svg'), chart);
  writeFileAtomic(join(outDir, 'comparison.json'), JSON.stringify(comparisons, null, 2) + '\n');
  process.stdout.write(md + `\nwritten: ${join(outDir, 'comparison.md')}\n`);
  return failed ? 1 : 0;
}

/** A suite's aggregator; a suite this process does not know gets the generic one (pass_rate and scorers). */
function aggregatorOf(suite: string): SuiteAggregator {
  return suiteNamed(suite)?.aggregator ?? genericAggregator;
}
