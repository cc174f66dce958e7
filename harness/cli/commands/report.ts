import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { readJsonl } from '../../core/jsonl.ts';
import type { ReproHeader } from '../../core/repro.ts';
import { CompareRefused, comparisonChart, comparisonMarkdown, compareRuns, type RunOutcomes } from '../../report/compare.ts';
import { flattenMetrics, SummarySchema, type Summary } from '../../report/summary.ts';
import type { InstanceMeta } from '../../vitest/meta.ts';
import { SUITE_AGGREGATORS, type SuiteName } from '../../../reporters/suites.ts';
import { finalizeSuite, INSTANCES_FILE } from '../../../reporters/write.ts';
import '../../../reporters/register-all.ts';
import { parseFlags } from '../flags.ts';

interface SavedRun {
  dir: string;
  summary: Summary;
  metas: InstanceMeta[];
}

function loadRun(dir: string): SavedRun {
  const sp = join(dir, 'summary.json');
  if (!existsSync(sp)) throw new UsageError(`toolgauge report: ${sp} not found (is ${dir} a toolgauge output directory?)`);
  const parsed = SummarySchema.safeParse(JSON.parse(readFileSync(sp, 'utf8')));
  if (!parsed.success) throw new UsageError(`toolgauge report: ${sp}: field ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
  const metas = readJsonl<InstanceMeta>(join(dir, INSTANCES_FILE));
  return { dir, summary: parsed.data, metas };
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
      gate: { type: 'string' },
      'out-dir': { type: 'string' },
      label: { type: 'string', multiple: true },
    },
    true,
  );
  if (!positionals.length) throw new UsageError('toolgauge report: give at least one run directory');
  const runs = positionals.map((d) => loadRun(resolve(d)));
  let failed = false;
  for (const r of runs) {
    const suite = r.summary.suite as SuiteName;
    const agg = SUITE_AGGREGATORS[suite];
    if (!agg) throw new UsageError(`toolgauge report: no aggregator for suite '${suite}'`);
    const seed = Number((r.summary.header as { seed?: number }).seed ?? 0);
    const f = finalizeSuite(suite, agg, r.metas, {
      header: r.summary.header as unknown as ReproHeader,
      config: r.summary.config,
      seed,
      gate: values.gate as string | undefined,
      outDir: r.dir,
    });
    r.summary = f.summary;
    if (f.gate && !f.gate.passed) failed = true;
    if (!values.compare) process.stdout.write(agg.terminal(f.summary, r.dir) + '\n');
  }
  if (!values.compare) return failed ? 1 : 0;

  const labels = (values.label as string[] | undefined) ?? [];
  const outcomes: RunOutcomes[] = runs.map((r, i) => ({
    label: labels[i] ?? `${(r.summary.header as { model: string }).model} (${basename(r.dir)})`,
    dir: r.dir,
    suite: r.summary.suite,
    datasetSha256: ((r.summary.header as { dataset?: { sha256?: string } | null }).dataset?.sha256 as string | undefined) ?? null,
    outcomes: SUITE_AGGREGATORS[r.summary.suite as SuiteName]!.outcomes(r.metas),
  }));
  let comparisons;
  try {
    comparisons = compareRuns(outcomes, { allowPartial: Boolean(values['allow-partial']) });
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
      estimate: flattenMetrics(r.summary.metrics as never)[headline] as never,
      note: i === 0 ? 'baseline' : comparisons[i - 1]!.results.find((x) => x.metric === headline)?.verdict,
    })),
    headline,
    simulated,
  );
  const outDir = resolve((values['out-dir'] as string | undefined) ?? join('results', 'compare'));
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'comparison.md'), `${md}\n![${headline} per run](comparison.svg)\n`);
  writeFileSync(join(outDir, 'comparison.svg'), chart);
  writeFileSync(join(outDir, 'comparison.json'), JSON.stringify(comparisons, null, 2) + '\n');
  process.stdout.write(md + `\nwritten: ${join(outDir, 'comparison.md')}\n`);
  return failed ? 1 : 0;
}
