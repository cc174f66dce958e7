// BFCL's numbers from the tests' metas (pure: the reporter, `toolgauge report DIR` and merged shards compute the
// same): per-category accuracy and the overall score exactly as BFCL's leaderboard aggregates them (aggregate.ts,
// with intervals), and beside them toolgauge's view — the probe's layers on single-turn cases, the four-cause
// attribution, and the cases where BFCL's verdict and toolgauge's part.
import { deriveSeed } from '../core/rng.ts';
import { compareIds } from '../report/aggregate.ts';
import type { SuiteAggregator } from '../kit/types.ts';
import { estimateRate, type MetricEstimate } from '../stats/index.ts';
import { CAUSES } from '../calls/attribute/index.ts';
import { aggregate, OVERALL_WEIGHTS, withEstimates, type Leaderboard } from './aggregate.ts';
import { DEVIATION_CLASSES } from './beyond.ts';
import { ALL_CATEGORIES } from './categories.ts';
import { CALL_LAYERS } from '../calls/score/index.ts';
import type { BfclMeta } from './meta.ts';
import { bfclCharts, bfclMarkdown, bfclTerminal } from './report.ts';
import { UNPASSABLE_KEYS } from './unpassable.ts';

/** Deviation examples kept in summary.json (the per-case records are in beyond.jsonl). */
export const DEVIATION_EXAMPLES = 100;

const LAYER_DENOMINATORS: Record<(typeof CALL_LAYERS)[number], string> = {
  parse_ok: 'single-turn call-expected cases',
  schema_valid: 'single-turn call-expected cases where a call was parsed',
  tool_correct: 'single-turn call-expected cases where a call was parsed',
  args_correct: 'single-turn call-expected cases with the right tool(s)',
  abstained: 'single-turn abstention cases (irrelevance)',
  false_trigger: 'single-turn abstention cases (irrelevance)',
};

export const GROUP_METRICS = ['simple_non_live', 'non_live', 'live', 'irrelevance', 'relevance', 'multi_turn'] as const;

const only = (metas: readonly unknown[]): BfclMeta[] =>
  metas.filter((m): m is BfclMeta => (m as BfclMeta).suite === 'bfcl');

export interface BfclAggregate {
  metrics: Record<string, MetricEstimate>;
  breakdowns: Record<string, Record<string, Record<string, MetricEstimate>>>;
  counts: Record<string, number>;
  errors: Array<{ id: string; trial: number; error: string }>;
  extra: Record<string, unknown>;
  leaderboard: Leaderboard;
}

/**
 * Every case counts once per trial in BFCL's numbers; a harness error counts as invalid (BFCL scores a case whose
 * inference failed as a failure) and is also counted apart (`counts.errors`, `error_rate`).
 */
export function aggregateBfcl(all: readonly unknown[], seed: number): BfclAggregate {
  const metas = only(all).sort((a, b) => compareIds(a.id, b.id) || a.trial - b.trial);
  const board = aggregate(metas.map((m) => ({ category: m.category, valid: m.valid && !m.error })));
  const est = withEstimates(board, { estimateRate, seed });
  const metrics: Record<string, MetricEstimate> = { overall: est.overall, overall_in_scope: est.overall_in_scope };
  for (const g of GROUP_METRICS) metrics[`group.${g}`] = est.groups[g];
  for (const [c, e] of Object.entries(est.categories)) metrics[`accuracy.${c}`] = e!;

  const rate = (xs: number[], denominator: string, tag: string) =>
    estimateRate(xs, { denominator, seed: deriveSeed(seed, 'bfcl-metric', tag) });
  const scored = metas.filter((m) => !m.error);
  const single = scored.filter((m) => m.layers);
  for (const tier of ['strict', 'lenient'] as const) {
    for (const layer of CALL_LAYERS) {
      const xs = single.map((m) => m.layers![tier][layer]).filter((x): x is 0 | 1 => x !== null);
      metrics[`layers.${tier === 'strict' ? '' : 'lenient.'}${layer}`] = rate(
        xs,
        `${LAYER_DENOMINATORS[layer]} (${tier} parser tier)`,
        `${tier}.${layer}`,
      );
    }
  }
  for (const cause of CAUSES) {
    metrics[`attribution.${cause}`] = rate(
      single.map((m) => (m.toolgauge?.cause === cause ? 1 : 0)),
      'single-turn cases (strict tier)',
      `attribution.${cause}`,
    );
  }
  metrics['toolgauge.accuracy'] = rate(
    metas.map((m) => (m.toolgauge?.pass && !m.error ? 1 : 0)),
    "cases (toolgauge's verdict, lenient tier; harness errors count as failed)",
    'toolgauge',
  );
  metrics.error_rate = rate(
    metas.map((m) => (m.error ? 1 : 0)),
    'cases',
    'error_rate',
  );

  const categories = [...new Set(metas.map((m) => m.category))].sort(
    (a, b) => ALL_CATEGORIES.indexOf(a as never) - ALL_CATEGORIES.indexOf(b as never),
  );
  const category: Record<string, Record<string, MetricEstimate>> = {};
  const perCategory: Record<string, Record<string, number>> = {};
  for (const c of categories) {
    const ms = metas.filter((m) => m.category === c);
    category[c] = {
      accuracy: est.categories[c as keyof typeof est.categories]!,
      'toolgauge.accuracy': rate(
        ms.map((m) => (m.toolgauge?.pass && !m.error ? 1 : 0)),
        `${c} cases (toolgauge's verdict)`,
        `toolgauge.${c}`,
      ),
    };
    perCategory[c] = {
      cases: ms.length,
      valid: ms.filter((m) => m.valid && !m.error).length,
      errors: ms.filter((m) => m.error).length,
      undecided: ms.filter((m) => m.undecided).length,
      crashes: ms.filter((m) => m.crash).length,
      deviations: ms.filter((m) => m.deviation).length,
      unpassable: ms.filter((m) => m.unpassable).length,
    };
  }

  const errorTypes: Record<string, number> = {};
  for (const m of metas) if (!m.valid) errorTypes[m.error_type] = (errorTypes[m.error_type] ?? 0) + 1;
  const deviations: Record<string, number> = Object.fromEntries(DEVIATION_CLASSES.map((c) => [c, 0]));
  for (const m of metas) if (m.deviation) deviations[m.deviation.class]!++;
  const attribution: Record<string, number> = {};
  for (const m of single) {
    const k = m.toolgauge?.cause ?? (m.toolgauge?.kind === 'pass' ? 'passed' : (m.toolgauge?.kind ?? 'unknown'));
    attribution[k] = (attribution[k] ?? 0) + 1;
  }

  return {
    metrics,
    breakdowns: { category },
    counts: {
      instances: new Set(metas.map((m) => m.id)).size,
      runs: metas.length,
      valid: metas.filter((m) => m.valid && !m.error).length,
      invalid: metas.filter((m) => !m.valid && !m.error).length,
      errors: metas.filter((m) => m.error).length,
      crashes: metas.filter((m) => m.crash).length,
      undecided: metas.filter((m) => m.undecided).length,
      deviations: metas.filter((m) => m.deviation).length,
      unpassable: metas.filter((m) => m.unpassable).length,
      resumed: metas.filter((m) => m.resumed).length,
      categories_run: categories.length,
      categories_missing: board.missing.length,
      requests: metas.reduce((s, m) => s + m.requests, 0),
      total_tokens: metas.reduce((s, m) => s + m.usage.total_tokens, 0),
    },
    errors: metas.filter((m) => m.error).map((m) => ({ id: m.id, trial: m.trial, error: m.error! })),
    extra: {
      leaderboard: {
        groups: board.groups,
        overall: board.overall,
        overall_in_scope: board.overall_in_scope,
        weights: OVERALL_WEIGHTS,
        missing: board.missing,
      },
      per_category: perCategory,
      error_types: errorTypes,
      deviations,
      deviation_examples: metas
        .filter((m) => m.deviation)
        .slice(0, DEVIATION_EXAMPLES)
        .map((m) => ({
          id: m.id,
          category: m.category,
          bfcl: m.deviation!.bfcl,
          toolgauge: m.deviation!.toolgauge,
          class: m.deviation!.class,
          note: m.deviation!.note,
        })),
      attribution,
      unpassable: metas
        .filter((m) => m.unpassable)
        .map((m) => ({
          id: m.id,
          category: m.category,
          valid: m.valid,
          error_type: m.error_type,
          expected_error: UNPASSABLE_KEYS[m.id]!.error_type,
          why: UNPASSABLE_KEYS[m.id]!.why,
        })),
      undecided_examples: metas
        .filter((m) => m.undecided)
        .slice(0, 10)
        .map((m) => ({ id: m.id, why: m.undecided })),
    },
    leaderboard: board,
  };
}

export const bfclAggregator: SuiteAggregator<BfclMeta> = {
  aggregate(metas, seed) {
    const a = aggregateBfcl(metas, seed);
    return {
      counts: a.counts,
      metrics: a.metrics,
      breakdowns: a.breakdowns,
      errors: a.errors,
      extra: a.extra,
      harnessErrors: a.counts.errors!,
      instances: a.counts.instances!,
    };
  },
  outcomes(metas) {
    // Per category (a comparison pairs runs on the same cases), then toolgauge's verdict over all.
    const out: Record<string, Map<string, number>> = {};
    const sorted = only(metas).sort(
      (a, b) =>
        ALL_CATEGORIES.indexOf(a.category as never) - ALL_CATEGORIES.indexOf(b.category as never) ||
        compareIds(a.id, b.id),
    );
    const sums = new Map<string, Map<string, { s: number; k: number }>>();
    const add = (metric: string, id: string, x: number) => {
      const m = sums.get(metric) ?? new Map<string, { s: number; k: number }>();
      const e = m.get(id) ?? { s: 0, k: 0 };
      e.s += x;
      e.k++;
      m.set(id, e);
      sums.set(metric, m);
    };
    for (const m of sorted) add(`accuracy.${m.category}`, m.id, m.valid && !m.error ? 1 : 0);
    for (const m of sorted) add('toolgauge.accuracy', m.id, m.toolgauge?.pass && !m.error ? 1 : 0);
    for (const [metric, m] of sums) out[metric] = new Map([...m].map(([id, e]) => [id, e.s / e.k]));
    return out;
  },
  lowerIsBetter: ['error_rate', 'attribution.*', 'layers.false_trigger', 'layers.lenient.false_trigger'],
  comparableOn: ['mode'],
  markdown: bfclMarkdown,
  terminal: bfclTerminal,
  charts: bfclCharts,
};
