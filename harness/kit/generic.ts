import { z } from 'zod';
import { compareIds, groupTrials, passMetrics, rateOfItems } from '../report/aggregate.ts';
import { fmtEstimate, headerBlock, METRIC_HEADERS, metricRow, table } from '../report/markdown.ts';
import { flattenMetrics, type Summary, noticeTag, summaryFooter } from '../report/summary.ts';
import { barChart, estimateBar } from '../report/svg.ts';
import type { MetricEstimate } from '../stats/index.ts';
import type { Aggregate, InstanceMetaBase, SuiteAggregator } from './types.ts';
import { judgeMetaShape, judgeTotals, judgeTotalsLines, type JudgeMetaFields } from './eval/judge-totals.ts';
import { pushTo } from '../core/push-to.ts';

/**
 * The aggregation every suite gets without writing one (user evals, and any suite the reporter has never seen):
 * `pass_rate` (the share of passing instances), `error_rate`, one metric per scorer from `scores`, pass@k / pass^k
 * with trials, and a breakdown per tag. Trials are averaged per instance before any interval.
 */
export interface ScoredMeta extends InstanceMetaBase, JudgeMetaFields {
  /**
   * Scorer name → score in [0, 1], or null: unscored (left out of that scorer's metric, counted in `unscored`). A
   * harness error scores 0 on every scorer.
   */
  scores?: Record<string, number | null>;
  /** Every scorer returned null: neither passed nor failed (counted in `counts.unscored`). */
  unscored?: boolean;
  /** Group name → value, for breakdowns (e.g. `{ category: 'math' }`). */
  tags?: Record<string, string>;
}

/**
 * What a journal line of a scored suite must hold for the generic aggregation: a score from every scorer its config
 * names (`config.scorers`; a missing one would silently count 0), each in [0, 1] or null (unscored), and string tags (the breakdowns). Used by
 * describeEval's suites, and by `report DIR` for a suite this process does not know, from its summary's config.
 */
export function scoredMetaSchema(config: Record<string, unknown>): z.ZodType {
  const names = Array.isArray(config.scorers) ? config.scorers.filter((n): n is string => typeof n === 'string') : [];
  const scores = z.object(Object.fromEntries(names.map((n) => [n, z.number().min(0).max(1).nullable()]))).passthrough();
  return z
    .object({
      scores: names.length ? scores : scores.optional(),
      tags: z.record(z.string(), z.string()).optional(),
      ...judgeMetaShape,
    })
    .passthrough();
}

const DENOM = 'instances (harness errors count as failing)';

function scorerNames(metas: readonly ScoredMeta[]): string[] {
  const names = new Set<string>();
  for (const m of metas) for (const k of Object.keys(m.scores ?? {})) names.add(k);
  return [...names].sort();
}

function metricsOf(metas: readonly ScoredMeta[], seed: number, withTrials: boolean): Record<string, MetricEstimate> {
  const key = (m: ScoredMeta) => m.id;
  const passOutcome = (m: ScoredMeta) => (m.pass && !m.error ? 1 : 0);
  const out: Record<string, MetricEstimate> = {
    pass_rate: rateOfItems(metas, key, passOutcome, DENOM, seed),
    error_rate: rateOfItems(metas, key, (m) => (m.error ? 1 : 0), 'instances', seed),
  };
  for (const name of scorerNames(metas)) {
    if (name in out) continue;
    // Over the scored cases only: a null score (unscored) is left out, never counted as 0.
    const scored = metas.filter((m) => m.error || !isUnscored(m, name));
    out[name] = rateOfItems(
      scored,
      key,
      (m) => (m.error ? 0 : clamp01(m.scores?.[name] ?? 0)),
      `${DENOM}; mean score over the scored cases`,
      seed,
    );
  }
  // pass@k and pass^k need every instance's trials: only a run with more than one trial has them.
  if (withTrials && metas.some((m) => m.trial > 0)) {
    const passed = groupTrials(metas, key, passOutcome);
    const k = Math.min(...[...passed.values()].map((t) => t.length));
    if (k > 1) Object.assign(out, passMetrics(passed, k, 'instances', seed));
  }
  return out;
}

const isUnscored = (m: ScoredMeta, name: string) => !m.error && m.scores?.[name] === null;

/** Scorer name → how many runs it left unscored (only scorers that left some). */
function unscoredCounts(metas: readonly ScoredMeta[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of scorerNames(metas)) {
    const n = metas.filter((m) => isUnscored(m, name)).length;
    if (n) out[name] = n;
  }
  return out;
}

function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

export function aggregateGeneric(all: readonly InstanceMetaBase[], seed: number): Aggregate {
  const metas = [...(all as ScoredMeta[])].sort((a, b) => compareIds(a.id, b.id) || a.trial - b.trial);
  const breakdowns: Aggregate['breakdowns'] = {};
  const groups = new Set<string>();
  for (const m of metas) for (const g of Object.keys(m.tags ?? {})) groups.add(g);
  for (const g of [...groups].sort()) {
    const byKey = new Map<string, ScoredMeta[]>();
    for (const m of metas) {
      const v = m.tags?.[g];
      if (v === undefined) continue;
      pushTo(byKey, v, m);
    }
    const rows: Record<string, Record<string, MetricEstimate>> = Object.create(null);
    for (const [k, ms] of [...byKey].sort(([a], [b]) => compareIds(a, b))) rows[k] = metricsOf(ms, seed, false);
    breakdowns[g] = rows;
  }
  const errors = metas.filter((m) => m.error).map((m) => ({ id: m.id, trial: m.trial, error: m.error! }));
  const instances = new Set(metas.map((m) => m.id)).size;
  const unscored = unscoredCounts(metas);
  return {
    counts: {
      instances,
      runs: metas.length,
      passed: metas.filter((m) => m.pass && !m.error).length,
      failed: metas.filter((m) => !m.pass && !m.error && !m.unscored).length,
      // Runs where every scorer returned null: neither passed nor failed (pass_rate counts them as not passing).
      unscored: metas.filter((m) => m.unscored && !m.error).length,
      errors: errors.length,
      resumed: metas.filter((m) => m.resumed).length,
    },
    metrics: metricsOf(metas, seed, true),
    breakdowns,
    errors,
    extra: { ...(Object.keys(unscored).length ? { unscored } : {}), ...judgeTotals(metas) },
    harnessErrors: errors.length,
    instances,
  };
}

/** The report's note on null scores: which scorers left runs unscored, and the runs no scorer scored. */
function unscoredLines(s: Summary): string[] {
  const per = Object.entries((s.extra?.unscored ?? {}) as Record<string, number>);
  const all = s.counts.unscored ?? 0;
  if (!per.length && !all) return [];
  return [
    `Unscored (a scorer returned null; left out of that scorer's metric): ${per.map(([k, n]) => `${k} ${n}`).join(', ') || 'none'} run(s)${all ? `; ${all} run(s) with no score at all (not passed, not failed)` : ''}.`,
    '',
  ];
}

export const genericAggregator: SuiteAggregator = {
  aggregate: (metas, seed) => aggregateGeneric(metas, seed),
  outcomes(metas) {
    // Per-trial values, averaged per instance.
    const lists: Record<string, Map<string, number[]>> = {};
    const push = (metric: string, id: string, x: number) => {
      const m = (lists[metric] ??= new Map());
      pushTo(m, id, x);
    };
    for (const m of metas as ScoredMeta[]) {
      push('pass_rate', m.id, m.pass && !m.error ? 1 : 0);
      for (const [k, v] of Object.entries(m.scores ?? {}))
        if (m.error || v !== null) push(k, m.id, m.error ? 0 : clamp01(v ?? 0));
    }
    return Object.fromEntries(
      Object.entries(lists).map(([metric, m]) => [
        metric,
        new Map([...m].map(([id, xs]) => [id, xs.reduce((s, x) => s + x, 0) / xs.length])),
      ]),
    );
  },
  lowerIsBetter: ['error_rate'],
  markdown(s: Summary) {
    const flat = flattenMetrics(s.metrics);
    const lines = [
      headerBlock(`${s.suite} — ${String((s.header as { model?: string }).model)}`, s),
      '## Metrics',
      '',
      table(
        METRIC_HEADERS,
        Object.entries(flat).map(([k, e]) => metricRow(k, e)),
      ),
      '',
      ...unscoredLines(s),
      ...judgeTotalsLines(s.extra),
    ];
    for (const [group, byKey] of Object.entries(s.breakdowns)) {
      const rows = Object.entries(byKey).map(([k, ms]) => {
        const f = flattenMetrics(ms);
        return [k, fmtEstimate(f.pass_rate), f.pass_rate?.n ?? 0];
      });
      lines.push(`### By ${group}`, '', table([group, 'pass_rate [95% CI]', 'n'], rows), '');
    }
    return lines.join('\n');
  },
  terminal(s: Summary, outDir: string) {
    const flat = flattenMetrics(s.metrics);
    const lines = ['', `toolgauge · ${s.suite} · ${String((s.header as { model?: string }).model)}${noticeTag(s)}`];
    for (const [k, e] of Object.entries(flat)) lines.push(`  ${k} ${fmtEstimate(e)}  n=${e.n}`);
    lines.push(
      `  ${s.counts.runs ?? 0} runs, ${s.counts.passed ?? 0} passed, ${s.counts.errors ?? 0} harness errors${s.counts.unscored ? `, ${s.counts.unscored} unscored` : ''}`,
    );
    lines.push(...summaryFooter(s, outDir));
    return lines.join('\n');
  },
  charts(s: Summary) {
    const flat = flattenMetrics(s.metrics);
    const bars = Object.entries(flat)
      .filter(([k]) => !k.startsWith('pass@') && !k.startsWith('pass^'))
      .map(([k, e]) => estimateBar(k, e));
    return [
      {
        file: 'charts/metrics.svg',
        label: 'Metrics with 95% CI',
        svg: barChart(bars, {
          title: `${s.suite} metrics (95% CI)${s.notice ? ' — simulator' : ''}`,
          axisLabel: 'rate',
        }),
      },
    ];
  },
};
