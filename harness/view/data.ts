import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { genericAggregator } from '../kit/generic.ts';
import { suiteNamed } from '../kit/registry.ts';
import type { InstanceMetaBase, SuiteAggregator } from '../kit/types.ts';
import { CompareRefused, compareRuns, type Comparison, type RunOutcomes } from '../report/compare.ts';
import { comparisonRow } from '../report/comparison-row.ts';
import { flattenMetrics, isEstimate, type EstimateJson, type Summary } from '../report/summary.ts';
import { insideDir, readTextNoFollow, type LoadedRun } from './load.ts';
import type { BreakdownView, CaseDetail, CaseRow, ComparisonView, MetricView, RunView, ViewData } from './model.ts';

/**
 * Loaded runs → the page's data: each run's header, metrics, breakdowns, gate, charts and case ledger, and the paired
 * comparison of every run with the first — computed by `report --compare`'s own code (harness/report/compare.ts)
 * with the suites' own outcomes, so the page never shows a verdict the statistics did not make.
 */

function aggregatorOf(suite: string): SuiteAggregator {
  return suiteNamed(suite)?.aggregator ?? genericAggregator;
}

const show = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function metricView(name: string, e: EstimateJson): MetricView {
  return { name, value: e.value, lo: e.lo, hi: e.hi, n: e.n, denominator: e.denominator, method: e.method };
}

export function headerRows(s: Summary): Array<[string, string]> {
  const h = s.header;
  return [
    ['suite', s.suite],
    ['model', h.model],
    ['endpoint', h.endpoint],
    ['simulated', h.simulated ? 'yes: the simulator answered, not a model' : 'no'],
    ['dataset', h.dataset ? `${h.dataset.origin ?? h.dataset.file}` : '—'],
    ['dataset sha256', h.dataset?.sha256 ?? '—'],
    ['template sha256', h.template_sha256 ?? '—'],
    ['seed', String(h.seed)],
    ['trials', String(h.trials)],
    ['started', h.started_at],
    ['ended', h.ended_at],
    [
      'toolgauge',
      `${h.toolgauge_version}${h.git_commit ? ` (${h.git_commit.slice(0, 12)}${h.git_dirty ? ', dirty' : ''})` : ''}`,
    ],
    ['machine', `${h.os} · ${h.cpu} · ${h.cpus} cpus · ${h.ram_gib} GiB · node ${h.node}`],
  ];
}

export function settingsRows(s: Summary): Array<[string, string]> {
  return [
    ...Object.entries(s.header.generation).map(([k, v]) => [`generation.${k}`, show(v)] as [string, string]),
    ...Object.entries(s.config).map(([k, v]) => [k, show(v)] as [string, string]),
  ];
}

export function breakdownViews(s: Summary): BreakdownView[] {
  return Object.entries(s.breakdowns).map(([group, byKey]) => {
    const flat = Object.entries(byKey).map(([key, nested]) => ({ key, metrics: flattenMetrics(nested) }));
    const metrics = [...new Set(flat.flatMap((f) => Object.keys(f.metrics)))];
    return {
      group,
      metrics,
      rows: flat.map((f) => ({
        key: f.key,
        cells: metrics.map((m) => (f.metrics[m] ? metricView(m, f.metrics[m]!) : null)),
      })),
    };
  });
}

/** The run's SVG charts: those its summary names, else every chart in charts/. */
function charts(dir: string, s: Summary | null, problems: RunView['problems']): RunView['charts'] {
  const named =
    s?.extra.charts && typeof s.extra.charts === 'object'
      ? Object.entries(s.extra.charts as Record<string, unknown>).filter(
          (e): e is [string, string] => typeof e[1] === 'string',
        )
      : null;
  let list: Array<[string, string]> = named ?? [];
  if (!named) {
    try {
      list = readdirSync(join(dir, 'charts'))
        .filter((f) => f.endsWith('.svg'))
        .sort()
        .map((f) => [f.replace(/\.svg$/, ''), `charts/${f}`]);
    } catch {
      list = [];
    }
  }
  const out: RunView['charts'] = [];
  for (const [label, rel] of list) {
    const path = insideDir(dir, rel);
    if (!path) continue;
    try {
      const svg = readTextNoFollow(dir, path, 4 * 1024 * 1024);
      if (svg !== null) out.push({ label, svg });
    } catch (err) {
      problems.push({ file: path, message: (err as Error).message });
    }
  }
  return out;
}

export function runView(run: LoadedRun, label: string): { view: RunView; details: CaseDetail[] } {
  const s = run.summary;
  const problems = [...run.problems];
  const details: CaseDetail[] = [];
  const rows: CaseRow[] = run.cases.map((c) => {
    details.push(c.detail);
    return { ...c.row, detail: details.length - 1 };
  });
  rows.sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) || a.trial - b.trial);
  const metrics = s
    ? Object.entries(flattenMetrics(s.metrics))
        .filter(([, e]) => isEstimate(e))
        .map(([n, e]) => metricView(n, e))
    : [];
  const view: RunView = {
    label,
    dir: run.dir,
    suite: s?.suite ?? String(run.metas[0]?.suite ?? 'unknown'),
    notice: s ? s.notice : null,
    header: s ? headerRows(s) : [['summary', 'summary.json missing or unreadable: see the problems']],
    settings: s ? settingsRows(s) : [],
    counts: s ? Object.entries(s.counts) : [],
    metrics,
    breakdowns: s ? breakdownViews(s) : [],
    gate: s?.gate ? { expression: s.gate.expression, passed: s.gate.passed, reasons: s.gate.reasons } : null,
    causes: causeCounts(rows),
    extra: s
      ? Object.entries(s.extra)
          .filter(([k]) => k !== 'charts')
          .map(([k, v]) => [k, JSON.stringify(v, null, 2)] as [string, string])
      : [],
    charts: charts(run.dir, s, problems),
    rows,
    problems,
  };
  return { view, details };
}

/** Cases per cause, and how many of them did not pass; causes sorted by count. */
export function causeCounts(rows: readonly CaseRow[]): Array<[string, number, number]> {
  const m = new Map<string, [number, number]>();
  for (const r of rows) {
    if (!r.cause) continue;
    const c = m.get(r.cause) ?? [0, 0];
    c[0]++;
    if (r.status !== 'pass') c[1]++;
    m.set(r.cause, c);
  }
  return [...m.entries()]
    .sort((a, b) => b[1][0] - a[1][0] || (a[0] < b[0] ? -1 : 1))
    .map(([k, [n, bad]]) => [k, n, bad]);
}

export function comparisonView(c: Comparison): ComparisonView {
  return {
    baseline: c.baseline,
    candidate: c.candidate,
    shared: c.shared,
    onlyInBaseline: c.onlyInBaseline,
    onlyInCandidate: c.onlyInCandidate,
    rows: c.results.map(comparisonRow),
  };
}

/** `report --compare`'s label: the model and the folder's name. */
export function defaultLabel(run: LoadedRun): string {
  return `${run.summary?.header.model ?? 'unknown model'} (${basename(run.dir)})`;
}

/**
 * Every run against the first, as `toolgauge report … --compare` computes it (the same refusals: another suite,
 * dataset, instance set or comparable setting, unless `allowPartial`).
 */
export function comparisons(
  runs: LoadedRun[],
  labels: string[],
  allowPartial: boolean,
): { comparisons: ComparisonView[]; refused: string | null } {
  if (runs.length < 2) return { comparisons: [], refused: null };
  const missing = runs.find((r) => !r.summary);
  if (missing)
    return { comparisons: [], refused: `no comparison: ${join(missing.dir, 'summary.json')} is missing or unreadable` };
  const outcomes: RunOutcomes[] = runs.map((r, i) => ({
    label: labels[i]!,
    dir: r.dir,
    suite: r.summary!.suite,
    datasetSha256: r.summary!.header.dataset?.sha256 ?? null,
    outcomes: aggregatorOf(r.summary!.suite).outcomes(r.metas as unknown as InstanceMetaBase[]),
    config: r.summary!.config,
  }));
  try {
    const agg = aggregatorOf(runs[0]!.summary!.suite);
    const guard = (
      agg as { compareGuard?: (runs: Array<{ dir: string; config: Record<string, unknown> }>) => string | null }
    ).compareGuard;
    const refusal = guard?.(runs.map((r) => ({ dir: r.dir, config: r.summary!.config })));
    if (refusal) throw new CompareRefused(refusal);
    const cs = compareRuns(outcomes, {
      allowPartial,
      comparableOn: agg.comparableOn ?? [],
      lowerIsBetter: agg.lowerIsBetter ?? [],
    });
    return { comparisons: cs.map(comparisonView), refused: null };
  } catch (err) {
    if (err instanceof CompareRefused) return { comparisons: [], refused: err.message };
    throw err;
  }
}

export function viewData(
  runs: LoadedRun[],
  o: { labels?: string[]; allowPartial?: boolean } = {},
): { data: ViewData; details: CaseDetail[][] } {
  const labels = runs.map((r, i) => o.labels?.[i] ?? defaultLabel(r));
  const views = runs.map((r, i) => runView(r, labels[i]!));
  const cmp = comparisons(runs, labels, o.allowPartial ?? false);
  return {
    data: {
      schema: 'toolgauge.view/1',
      runs: views.map((v) => v.view),
      comparisons: cmp.comparisons,
      comparisonRefused: cmp.refused,
      problems: [],
    },
    details: views.map((v) => v.details),
  };
}
