import { compareMany, disjointCiRule, rulesAgree, type DisjointCiRule, type PairedComparison } from '../stats/index.ts';
import { COMPARISON_HEAD, comparisonCells, comparisonRow } from './comparison-row.ts';
import { table } from './markdown.ts';
import { barChart, type Bar } from './svg.ts';

/** One saved run, reduced to what a paired comparison needs. */
export interface RunOutcomes {
  label: string;
  dir: string;
  suite: string;
  datasetSha256: string | null;
  /** metric → instance id → outcome (trials already averaged). */
  outcomes: Record<string, Map<string, number>>;
  /** The run's config block (checked for the keys that must agree). */
  config?: Record<string, unknown>;
}

/**
 * Toolhound's credibility rule (disjoint per-run CIs) on the same instances, worded by the metric's direction like the
 * verdict; `agrees` says whether it reaches the paired verdict. Reported beside the verdict, never instead of it.
 */
export type ToolhoundRule = Omit<DisjointCiRule, 'verdict'> & { verdict: PairedComparison['verdict']; agrees: boolean };

export type ComparedMetric = PairedComparison & { toolhoundRule: ToolhoundRule };

export interface Comparison {
  baseline: string;
  candidate: string;
  shared: number;
  onlyInBaseline: number;
  onlyInCandidate: number;
  results: ComparedMetric[];
}

export class CompareRefused extends Error {
  override name = 'CompareRefused';
}

/**
 * Compare every run against the first (the baseline) on their shared instances: a paired bootstrap of the
 * difference and exact McNemar, Holm-corrected over the whole family (all metrics × all candidates). Refuses runs
 * of different suites, datasets or instance sets unless `allowPartial`.
 */
export function compareRuns(
  runs: RunOutcomes[],
  opts: {
    allowPartial?: boolean;
    seed?: number;
    alpha?: number;
    comparableOn?: readonly string[];
    lowerIsBetter?: readonly string[];
  } = {},
): Comparison[] {
  if (runs.length < 2) throw new CompareRefused('--compare needs at least two runs');
  const [base, ...rest] = runs as [RunOutcomes, ...RunOutcomes[]];
  for (const r of rest) {
    if (r.suite !== base.suite)
      throw new CompareRefused(`cannot compare a ${base.suite} run (${base.dir}) with a ${r.suite} run (${r.dir})`);
    for (const key of opts.comparableOn ?? []) {
      const a = JSON.stringify(base.config?.[key] ?? null);
      const b = JSON.stringify(r.config?.[key] ?? null);
      if (a !== b && !opts.allowPartial) {
        throw new CompareRefused(
          `${r.dir} ran with ${key} ${b} but ${base.dir} with ${a}: their numbers are not comparable; pass --allow-partial to compare anyway`,
        );
      }
    }
    if (!opts.allowPartial && base.datasetSha256 !== r.datasetSha256) {
      throw new CompareRefused(
        `${r.dir} used a different dataset (sha256 ${short(r.datasetSha256)}) than ${base.dir} (${short(base.datasetSha256)}); pass --allow-partial to compare the shared instances anyway`,
      );
    }
    const a = instanceIds(base);
    const b = instanceIds(r);
    const onlyA = [...a].filter((x) => !b.has(x));
    const onlyB = [...b].filter((x) => !a.has(x));
    // even a partial comparison needs a shared instance: with none there is no pair to test
    if (![...a].some((x) => b.has(x))) {
      throw new CompareRefused(
        `${base.dir} and ${r.dir} share no instances (${a.size} in the first, ${b.size} in the second): there is nothing to compare`,
      );
    }
    if (!opts.allowPartial && (onlyA.length || onlyB.length)) {
      throw new CompareRefused(
        `${base.dir} and ${r.dir} cover different instances (${onlyA.length} only in the first, ${onlyB.length} only in the second, e.g. ${[...onlyA, ...onlyB].slice(0, 3).join(', ')}); pass --allow-partial to compare the ${[...a].filter((x) => b.has(x)).length} shared ones`,
      );
    }
  }
  const family = rest.flatMap((r) =>
    Object.keys(base.outcomes)
      .filter((m) => r.outcomes[m])
      .map((metric) => ({ run: r, metric, a: base.outcomes[metric]!, b: r.outcomes[metric]! })),
  );
  const results = compareMany(
    family.map((f) => ({ metric: f.metric, a: f.a, b: f.b })),
    { seed: opts.seed ?? 0, alpha: opts.alpha ?? 0.05 },
  );
  const lower = opts.lowerIsBetter ?? [];
  const worded = results.map((x, i): ComparedMetric => {
    const f = family[i]!;
    const rule = disjointCiRule(f.a, f.b, { seed: opts.seed ?? 0, level: x.level });
    const low = isLowerBetter(x.metric, lower);
    const toolhoundRule = {
      ...rule,
      verdict: low ? lowerVerdict(rule.verdict) : rule.verdict,
      agrees: rulesAgree(x.verdict, rule.verdict),
    };
    return { ...x, verdict: low ? lowerVerdict(x.verdict) : x.verdict, toolhoundRule };
  });
  return rest.map((r) => {
    const mine = worded.filter((_, i) => family[i]!.run === r);
    const a = instanceIds(base);
    const b = instanceIds(r);
    return {
      baseline: base.label,
      candidate: r.label,
      shared: [...a].filter((x) => b.has(x)).length,
      onlyInBaseline: [...a].filter((x) => !b.has(x)).length,
      onlyInCandidate: [...b].filter((x) => !a.has(x)).length,
      results: mine,
    };
  });
}

/** `rc.*` matches `rc.P2`; a plain name matches itself. */
export function isLowerBetter(metric: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('*') ? metric.startsWith(p.slice(0, -1)) : metric === p));
}

/**
 * The paired test speaks of the difference (a "gain" is a rise). For a metric where lower is better — an error
 * rate, a false-trigger rate, a cost — a rise is a worsening, and the verdict says so.
 */
function lowerVerdict(v: PairedComparison['verdict']): PairedComparison['verdict'] {
  if (v === 'credible gain') return 'credible rise (worse)';
  if (v === 'credible harm') return 'credible fall (improved)';
  return v;
}

function instanceIds(r: RunOutcomes): Set<string> {
  const ids = new Set<string>();
  for (const m of Object.values(r.outcomes)) for (const id of m.keys()) ids.add(id);
  return ids;
}

function short(s: string | null): string {
  return s ? `${s.slice(0, 12)}…` : 'unknown';
}

export function comparisonMarkdown(cs: Comparison[], notice: string | null): string {
  const lines = ['# Paired comparison', ''];
  if (notice) lines.push(`> **${notice}**`, '');
  lines.push(
    'Each candidate is compared with the baseline on the instances both ran: paired bootstrap CI of the difference (candidate − baseline) and, for pass/fail outcomes, the exact McNemar test on discordant pairs; p-values are Holm-corrected over all rows. A change is *credible* when the corrected p ≤ 0.05 and the CI excludes 0.',
    '',
    "The last two columns are Toolhound's rule on the same instances, for comparison only: each run's own bootstrap CI, and a change counted credible when the two CIs are disjoint. The verdict is the paired test's; a row marked ≠ is one where the rules disagree (docs/statistics.md says why the paired test is preferred).",
    '',
  );
  for (const c of cs) {
    lines.push(
      `## ${c.candidate} vs ${c.baseline}`,
      '',
      `${c.shared} shared instances${c.onlyInBaseline || c.onlyInCandidate ? ` (${c.onlyInBaseline} only in the baseline, ${c.onlyInCandidate} only in the candidate — left out)` : ''}.`,
      '',
    );
    lines.push(
      table(
        [...COMPARISON_HEAD, 'CIs baseline · candidate', "Toolhound's rule (disjoint CIs)"],
        c.results.map((r) => [
          ...comparisonCells(comparisonRow(r)),
          `**${r.verdict}**`,
          `${interval(r.toolhoundRule.a)} · ${interval(r.toolhoundRule.b)}`,
          `${r.toolhoundRule.verdict}${r.toolhoundRule.agrees ? '' : ' ≠'}`,
        ]),
      ),
      '',
    );
  }
  return lines.join('\n');
}

/** A chart of each run's value of `metric` with its CI, one bar per run. */
export function comparisonChart(
  runs: Array<{
    label: string;
    estimate: { value: number | null; lo: number | null; hi: number | null; n: number } | undefined;
    note?: string;
  }>,
  metric: string,
  simulated: boolean,
): string {
  const bars: Bar[] = runs.map((r) => ({
    label: r.label,
    value: r.estimate?.value ?? null,
    lo: r.estimate?.lo ?? null,
    hi: r.estimate?.hi ?? null,
    n: r.estimate?.n ?? 0,
    note: r.note,
  }));
  return barChart(bars, { title: `${metric} per run (95% CI)${simulated ? ' — simulator' : ''}`, axisLabel: metric });
}

function interval(x: { lo: number; hi: number }): string {
  return Number.isNaN(x.lo) ? '—' : `[${x.lo.toFixed(3)}, ${x.hi.toFixed(3)}]`;
}
