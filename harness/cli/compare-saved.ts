import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import { readTextChecked } from '../core/nofollow.ts';
import '../builtin/index.ts';
import { genericAggregator, scoredMetaSchema } from '../kit/generic.ts';
import { JOURNAL, verifiedJournal } from '../kit/journal.ts';
import { suiteNamed } from '../kit/registry.ts';
import type { InstanceMetaBase, SuiteAggregator } from '../kit/types.ts';
import {
  CompareRefused,
  comparisonChart,
  comparisonMarkdown,
  compareRuns,
  type Comparison,
  type RunOutcomes,
} from '../report/compare.ts';
import { flattenMetrics, SummarySchema, validSummary, type Summary } from '../report/summary.ts';

/**
 * A saved run's summary and checked journal, and the paired comparison of saved runs written as files: what
 * `toolgauge report --compare` does, shared with `toolgauge eval --model a,b` (one implementation).
 */

export interface SavedRun {
  dir: string;
  summary: Summary;
  metas: InstanceMetaBase[];
}

/** Read a run directory's summary.json and journal; `command` prefixes every one-line error. */
export function loadSavedRun(dir: string, command: string): SavedRun {
  const sp = join(dir, 'summary.json');
  let text: string | null;
  try {
    text = readTextChecked(sp, { root: dir }); // a FIFO or device in its place is refused, never waited on
  } catch (err) {
    throw new UsageError(`${command}: ${(err as Error).message}`);
  }
  if (text === null) throw new UsageError(`${command}: ${sp} not found (is ${dir} a toolgauge output directory?)`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${command}: ${sp}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = SummarySchema.safeParse(raw);
  if (!parsed.success)
    throw new UsageError(
      `${command}: ${sp}: field ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
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
            `${command}: ${join(dir, JOURNAL)}: ${n} line${n === 1 ? '' : 's'} without a seal (an older toolgauge, or rescore), not checked against the results files\n`,
          ),
      }).values(),
    ];
  } catch (err) {
    if (['JournalRefused', 'LinkRefused', 'FileRefused'].includes((err as Error).name))
      throw new UsageError(`${command}: ${(err as Error).message}`);
    throw err;
  }
  return { dir, summary, metas };
}

/** A suite's aggregator; a suite this process does not know gets the generic one (pass_rate and scorers). */
export function aggregatorOf(suite: string): SuiteAggregator {
  return suiteNamed(suite)?.aggregator ?? genericAggregator;
}

export interface WrittenComparison {
  comparisons: Comparison[];
  markdown: string;
  /** comparison.md; comparison.json and comparison.svg beside it. */
  path: string;
}

/**
 * Compare every run with the first on the instances both ran and write comparison.md, comparison.json and
 * comparison.svg into `outDir`. Throws CompareRefused when the runs cannot be compared (another suite, dataset,
 * instance set or comparable setting, unless `allowPartial`; a suite's own guard).
 */
export function writeComparison(
  runs: readonly SavedRun[],
  o: { outDir: string; labels?: readonly string[]; allowPartial?: boolean },
): WrittenComparison {
  const labels = o.labels ?? [];
  const outcomes: RunOutcomes[] = runs.map((r, i) => ({
    label: labels[i] ?? `${r.summary.header.model} (${basename(r.dir)})`,
    dir: r.dir,
    suite: r.summary.suite,
    datasetSha256: r.summary.header.dataset?.sha256 ?? null,
    outcomes: aggregatorOf(r.summary.suite).outcomes(r.metas),
    config: r.summary.config,
  }));
  const agg = aggregatorOf(runs[0]!.summary.suite);
  // A suite may refuse a comparison its configs make meaningless (the probe: quantizations with different templates).
  const refusal = (
    agg as { compareGuard?: (runs: Array<{ dir: string; config: Record<string, unknown> }>) => string | null }
  ).compareGuard?.(runs.map((r) => ({ dir: r.dir, config: r.summary.config })));
  if (refusal) throw new CompareRefused(refusal);
  const comparisons = compareRuns(outcomes, {
    allowPartial: Boolean(o.allowPartial),
    comparableOn: agg.comparableOn ?? [],
    lowerIsBetter: agg.lowerIsBetter ?? [],
  });
  const simulated = runs.find((r) => r.summary.notice);
  const md = comparisonMarkdown(comparisons, simulated ? simulated.summary.notice : null);
  const headline = Object.keys(outcomes[0]!.outcomes)[0]!;
  const chart = comparisonChart(
    runs.map((r, i) => ({
      label: outcomes[i]!.label,
      estimate: flattenMetrics(r.summary.metrics)[headline],
      note: i === 0 ? 'baseline' : comparisons[i - 1]!.results.find((x) => x.metric === headline)?.verdict,
    })),
    headline,
    !!simulated,
  );
  mkdirSync(o.outDir, { recursive: true });
  const path = join(o.outDir, 'comparison.md');
  writeFileAtomic(path, `${md}\n![${headline} per run](comparison.svg)\n`);
  writeFileAtomic(join(o.outDir, 'comparison.svg'), chart);
  writeFileAtomic(join(o.outDir, 'comparison.json'), JSON.stringify(comparisons, null, 2) + '\n');
  return { comparisons, markdown: md, path };
}
