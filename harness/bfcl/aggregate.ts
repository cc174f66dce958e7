// BFCL's leaderboard aggregation (eval_checker/eval_runner_helper.py, generate_leaderboard_csv, at the pinned
// commit), as a pure function of per-case verdicts, plus the same quantities with confidence intervals.
//
//   simple (non-live)  = mean(simple_python, simple_java, simple_javascript)                 unweighted
//   non_live           = mean(simple, multiple, parallel, parallel_multiple)                  unweighted
//   live               = Σ correct / Σ n over live_simple, live_multiple, live_parallel,
//                        live_parallel_multiple                                               weighted by n
//   irrelevance        = mean(irrelevance, live_irrelevance)                                  unweighted
//   relevance          = live_relevance                                       (shown, not in the overall)
//   multi_turn         = mean(base, miss_func, miss_param, long_context)                      unweighted
//   agentic            = mean(web search, memory)                                (not run by toolgauge)
//   overall            = 0.10·non_live + 0.10·live + 0.10·irrelevance + 0.30·multi_turn + 0.40·agentic
//
// A category that was not run counts as 0 (BFCL shows it as N/A but still uses 0), so a run without the agentic
// categories tops out at 60 % on BFCL's overall. `overall_in_scope` is toolgauge's addition: the same weights
// renormalised over the four groups it runs (10/10/10/30 → 1/6, 1/6, 1/6, 1/2).
import { deriveSeed, Rng } from '../core/rng.ts';
import type { MetricEstimate } from '../stats/index.ts';
import { ALL_CATEGORIES, type BfclCategory } from './categories.ts';

export interface CategoryTally {
  correct: number;
  total: number;
  accuracy: number;
  /** 0/1 per case in input order (for estimateRate / the bootstrap). */
  outcomes: number[];
}

export interface Leaderboard {
  categories: Partial<Record<BfclCategory, CategoryTally>>;
  /** Categories that were not run (each counts as 0 below). */
  missing: BfclCategory[];
  groups: {
    simple_non_live: number;
    non_live: number;
    live: number;
    irrelevance: number;
    relevance: number;
    multi_turn: number;
    agentic: number;
  };
  overall: number;
  overall_in_scope: number;
}

export const OVERALL_WEIGHTS = { non_live: 10, live: 10, irrelevance: 10, multi_turn: 30, agentic: 40 } as const;

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Per-category counts from verdicts (each `{category, valid}`). */
export function tally(
  records: ReadonlyArray<{ category: string; valid: boolean }>,
): Partial<Record<BfclCategory, CategoryTally>> {
  const out: Partial<Record<BfclCategory, CategoryTally>> = {};
  for (const r of records) {
    if (!(ALL_CATEGORIES as readonly string[]).includes(r.category)) continue;
    const t = (out[r.category as BfclCategory] ??= { correct: 0, total: 0, accuracy: 0, outcomes: [] });
    t.total++;
    t.outcomes.push(r.valid ? 1 : 0);
    if (r.valid) t.correct++;
  }
  for (const t of Object.values(out)) t!.accuracy = t!.correct / t!.total;
  return out;
}

/** The leaderboard numbers from per-category accuracies (and counts, for the weighted live score). */
export function leaderboardOf(
  categories: Partial<Record<BfclCategory, Pick<CategoryTally, 'correct' | 'total' | 'accuracy'>>>,
  datasetSizes: Partial<Record<BfclCategory, number>> = {},
): Omit<Leaderboard, 'categories'> {
  const acc = (c: BfclCategory) => categories[c]?.accuracy ?? 0;
  const simple = mean([acc('simple_python'), acc('simple_java'), acc('simple_javascript')]);
  const nonLive = mean([simple, acc('multiple'), acc('parallel'), acc('parallel_multiple')]);
  const liveCats: BfclCategory[] = ['live_simple', 'live_multiple', 'live_parallel', 'live_parallel_multiple'];
  // calculate_weighted_accuracy: a category that was not run still adds its full dataset size with accuracy 0
  // (given by datasetSizes; without it a missing category adds nothing).
  const size = (c: BfclCategory) => categories[c]?.total ?? datasetSizes[c] ?? 0;
  const liveN = liveCats.reduce((s, c) => s + size(c), 0);
  const live = liveN ? liveCats.reduce((s, c) => s + acc(c) * size(c), 0) / liveN : 0;
  const irrelevance = mean([acc('irrelevance'), acc('live_irrelevance')]);
  const multiTurn = mean([
    acc('multi_turn_base'),
    acc('multi_turn_miss_func'),
    acc('multi_turn_miss_param'),
    acc('multi_turn_long_context'),
  ]);
  const agentic = 0;
  const w = OVERALL_WEIGHTS;
  const total = w.non_live + w.live + w.irrelevance + w.multi_turn + w.agentic;
  const overall =
    (w.non_live * nonLive +
      w.live * live +
      w.irrelevance * irrelevance +
      w.multi_turn * multiTurn +
      w.agentic * agentic) /
    total;
  const inScope = w.non_live + w.live + w.irrelevance + w.multi_turn;
  const overallInScope =
    (w.non_live * nonLive + w.live * live + w.irrelevance * irrelevance + w.multi_turn * multiTurn) / inScope;
  return {
    missing: ALL_CATEGORIES.filter((c) => !categories[c]),
    groups: {
      simple_non_live: simple,
      non_live: nonLive,
      live,
      irrelevance,
      relevance: acc('live_relevance'),
      multi_turn: multiTurn,
      agentic,
    },
    overall,
    overall_in_scope: overallInScope,
  };
}

/** BFCL's leaderboard from verdicts. */
export function aggregate(
  records: ReadonlyArray<{ category: string; valid: boolean }>,
  datasetSizes: Partial<Record<BfclCategory, number>> = {},
): Leaderboard {
  const categories = tally(records);
  return { categories, ...leaderboardOf(categories, datasetSizes) };
}

export interface LeaderboardEstimates {
  categories: Partial<Record<BfclCategory, MetricEstimate>>;
  groups: Record<keyof Leaderboard['groups'], MetricEstimate>;
  overall: MetricEstimate;
  overall_in_scope: MetricEstimate;
}

export interface EstimateDeps {
  /** harness/stats estimateRate (injected so this module stays a pure function of its inputs). */
  estimateRate: (outcomes: readonly number[], opts: { denominator: string; seed?: number }) => MetricEstimate;
  seed?: number;
  resamples?: number;
  level?: number;
}

/**
 * Intervals: each category's accuracy through estimateRate (Wilson or bootstrap, as it decides); the composite
 * scores through a stratified percentile bootstrap — every category resampled within itself, seeded, the
 * leaderboard recomputed per resample — since they are fixed-weight mixtures of independent categories.
 */
export function withEstimates(board: Leaderboard, deps: EstimateDeps): LeaderboardEstimates {
  const seed = deps.seed ?? 0;
  const resamples = deps.resamples ?? 2000;
  const level = deps.level ?? 0.95;
  const categories: LeaderboardEstimates['categories'] = {};
  for (const [c, t] of Object.entries(board.categories) as Array<[BfclCategory, CategoryTally]>) {
    categories[c] = deps.estimateRate(t.outcomes, { denominator: `${c} cases`, seed: deriveSeed(seed, 'bfcl', c) });
  }
  const rng = new Rng(deriveSeed(seed, 'bfcl-leaderboard'));
  const draws: Array<Omit<Leaderboard, 'categories'>> = [];
  const entries = Object.entries(board.categories) as Array<[BfclCategory, CategoryTally]>;
  for (let r = 0; r < resamples; r++) {
    const cats: Partial<Record<BfclCategory, Pick<CategoryTally, 'correct' | 'total' | 'accuracy'>>> = {};
    for (const [c, t] of entries) {
      const k = rng.sumOfDraws(t.outcomes, t.total);
      cats[c] = { correct: k, total: t.total, accuracy: k / t.total };
    }
    draws.push(leaderboardOf(cats));
  }
  const n = entries.reduce((s, [, t]) => s + t.total, 0);
  const interval = (
    value: number,
    pick: (d: Omit<Leaderboard, 'categories'>) => number,
    denominator: string,
  ): MetricEstimate => {
    if (n === 0) return { value, lo: NaN, hi: NaN, n: 0, denominator, method: 'none', level };
    const xs = draws.map(pick).sort((a, b) => a - b);
    const q = (p: number) => xs[Math.min(xs.length - 1, Math.max(0, Math.floor(p * xs.length)))]!;
    return {
      value,
      lo: q((1 - level) / 2),
      hi: q(1 - (1 - level) / 2),
      n,
      denominator,
      method: 'bootstrap',
      level,
      seed,
      resamples,
    };
  };
  const groups = Object.fromEntries(
    (Object.keys(board.groups) as Array<keyof Leaderboard['groups']>).map((g) => [
      g,
      interval(board.groups[g], (d) => d.groups[g], `BFCL cases (${g}, stratified bootstrap over categories)`),
    ]),
  ) as LeaderboardEstimates['groups'];
  return {
    categories,
    groups,
    overall: interval(
      board.overall,
      (d) => d.overall,
      'BFCL cases (overall as the leaderboard weighs it; agentic not run counts 0)',
    ),
    overall_in_scope: interval(
      board.overall_in_scope,
      (d) => d.overall_in_scope,
      'BFCL cases (overall over the categories toolgauge runs)',
    ),
  };
}
