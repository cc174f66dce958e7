// Paired comparison of two runs on the same instances: "is B better than A?" with an effect size, an interval
// and a verdict a reviewer would accept (docs/statistics.md, "Paired comparisons").

import { Rng, deriveSeed } from '../core/rng.ts';
import { exactBinomialTwoSided } from './binomial.ts';
import { assertLevel, assertResamples } from './describe.ts';
import { holm } from './holm.ts';
import { bootstrapMeans, percentileInterval } from './resample.ts';
import { DEFAULT_RESAMPLES } from './types.ts';

/** A rise or fall is worded for metrics where lower is better (harness/report/compare.ts). */
export type Verdict =
  | 'credible gain'
  | 'credible harm'
  | 'no credible change'
  | 'credible rise (worse)'
  | 'credible fall (improved)';

export interface PairedOptions {
  /** Name of the metric compared (copied into the result). */
  metric: string;
  /** Seed of the bootstrap and the sign-flip test; default 0. */
  seed?: number;
  /** Bootstrap resamples and sign-flip draws; default 10,000. */
  resamples?: number;
  /** Significance level of the (family-wise) test; default 0.05. */
  alpha?: number;
  /** Level of the CI of the difference; default 1 − alpha, so the CI and the test speak at the same level. */
  level?: number;
}

export interface McNemar {
  /** Instances that fail in A and pass in B (gains). */
  b01: number;
  /** Instances that pass in A and fail in B (losses). */
  b10: number;
  /** Exact two-sided binomial test of b01 against b01 + b10 discordant pairs at ½. */
  pValue: number;
}

export interface PairedComparison {
  metric: string;
  /** Instances present in both runs: the only ones compared. */
  n: number;
  /** Instances only in A / only in B (left out of the comparison — report them, they may hide a bias). */
  onlyInA: number;
  onlyInB: number;
  meanA: number;
  meanB: number;
  /** meanB − meanA over the shared instances. */
  diff: number;
  /** Paired percentile-bootstrap CI of the mean difference at `level`. */
  lo: number;
  hi: number;
  level: number;
  /** Present when every shared value in both runs is 0 or 1. */
  mcnemar?: McNemar;
  /** The test behind `pValue`: exact McNemar for 0/1 data, the paired sign-flip test otherwise. */
  test: 'mcnemar_exact' | 'sign_flip' | 'none';
  /** Raw two-sided p-value of "no difference" (NaN when n = 0). */
  pValue: number;
  /** p-value after multiplicity correction (Holm over the family in `compareMany`; = pValue alone). */
  pAdjusted: number;
  alpha: number;
  verdict: Verdict;
  seed: number;
  resamples: number;
}

/**
 * The definition of "credible", used for every verdict: a change is credible when BOTH
 *   (1) the multiplicity-adjusted two-sided p-value is ≤ alpha, and
 *   (2) the paired-bootstrap CI of the difference (at `level`, default 1 − alpha) excludes 0;
 * it is a gain when lo > 0 and a harm when hi < 0. Requiring both makes the verdict hold under either reading of
 * the evidence: at small n the exact McNemar test is stricter than the bootstrap CI (5 gains, 0 losses in 20
 * gives a CI above 0 but p = 0.0625), and in a family the Holm-adjusted p is stricter than the unadjusted CI.
 */
export function verdictOf(lo: number, hi: number, pAdjusted: number, alpha: number): Verdict {
  if (!(pAdjusted <= alpha)) return 'no credible change';
  if (lo > 0) return 'credible gain';
  if (hi < 0) return 'credible harm';
  return 'no credible change';
}

/**
 * Two-sided paired sign-flip (randomization) test of "A and B are exchangeable within each instance", with the
 * mean difference as statistic: p = (1 + #{|Σ sᵢdᵢ| ≥ |Σdᵢ|}) / (1 + draws) over random signs sᵢ = ±1. Valid at
 * every n (the +1 makes the Monte Carlo p-value exact-valid), unlike a bootstrap p-value, which at n = 2 with two
 * positive differences would claim p ≈ 0.0002. On 0/1 data it is the (Monte Carlo) McNemar test.
 * No non-zero difference → 1.
 */
export function signFlipPValue(diffs: readonly number[], draws: number, rng: Rng): number {
  const d = Float64Array.from(diffs.filter((x) => x !== 0)).sort();
  const m = d.length;
  if (m === 0) return 1;
  let obs = 0;
  let scale = 0;
  for (let i = 0; i < m; i++) {
    obs += d[i] as number;
    scale += Math.abs(d[i] as number);
  }
  // Sums in another order round differently; count near-ties as "as extreme" (conservative).
  const threshold = Math.abs(obs) - 1e-12 * scale;
  let extreme = 0;
  for (let r = 0; r < draws; r++) {
    let s = 0;
    for (let i = 0; i < m; i += 32) {
      const bits = (rng.next() * 4294967296) >>> 0;
      const end = Math.min(32, m - i);
      for (let j = 0; j < end; j++) s += (bits >>> j) & 1 ? (d[i + j] as number) : -(d[i + j] as number);
    }
    if (Math.abs(s) >= threshold) extreme++;
  }
  return Math.min(1, (1 + extreme) / (1 + draws));
}

/**
 * Compare run A with run B on the instances they share (values: per-instance outcomes, 0/1 or averaged trials;
 * any finite numbers work). Shared ids are matched by key; the differences are sorted before resampling, so
 * the result depends neither on map order nor on which shard an instance came from.
 * - diff = meanB − meanA; [lo, hi] = percentile bootstrap of the mean difference (resampling instances).
 * - pValue: exact McNemar when all values are 0/1, else the paired sign-flip test (`signFlipPValue`).
 * - verdict: see `verdictOf` (here pAdjusted = pValue; `compareMany` applies Holm across a family).
 */
export function pairedCompare(
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
  opts: PairedOptions,
): PairedComparison {
  const alpha = opts.alpha ?? 0.05;
  const level = opts.level ?? 1 - alpha;
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const seed = opts.seed ?? 0;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`pairedCompare: alpha must be in (0, 1), got ${alpha}`);
  assertLevel(level, 'pairedCompare');
  assertResamples(resamples, 'pairedCompare');

  const ids: string[] = [];
  for (const id of a.keys()) if (b.has(id)) ids.push(id);
  ids.sort();
  const n = ids.length;
  const onlyInA = a.size - n;
  const onlyInB = b.size - n;
  const base = { metric: opts.metric, n, onlyInA, onlyInB, level, alpha, seed, resamples };
  if (n === 0) {
    const nan = { meanA: NaN, meanB: NaN, diff: NaN, lo: NaN, hi: NaN, pValue: NaN, pAdjusted: NaN };
    return { ...base, ...nan, test: 'none', verdict: 'no credible change' };
  }

  let sumA = 0;
  let sumB = 0;
  let binary = true;
  let b01 = 0;
  let b10 = 0;
  const diffs: number[] = new Array(n);
  ids.forEach((id, i) => {
    const x = a.get(id) as number;
    const y = b.get(id) as number;
    if (!Number.isFinite(x))
      throw new RangeError(`pairedCompare(${opts.metric}): run A, instance ${id}: ${x} is not a finite number`);
    if (!Number.isFinite(y))
      throw new RangeError(`pairedCompare(${opts.metric}): run B, instance ${id}: ${y} is not a finite number`);
    sumA += x;
    sumB += y;
    diffs[i] = y - x;
    if ((x !== 0 && x !== 1) || (y !== 0 && y !== 1)) binary = false;
    else if (x === 0 && y === 1) b01++;
    else if (x === 1 && y === 0) b10++;
  });
  const meanA = sumA / n;
  const meanB = sumB / n;

  const sorted = Float64Array.from(diffs).sort();
  const stats = bootstrapMeans(sorted, resamples, new Rng(deriveSeed(seed, 'paired-bootstrap')));
  const { lo, hi } = percentileInterval(stats, level);

  let mcnemar: McNemar | undefined;
  let pValue: number;
  if (binary) {
    mcnemar = { b01, b10, pValue: exactBinomialTwoSided(b01, b01 + b10, 0.5) };
    pValue = mcnemar.pValue;
  } else {
    pValue = signFlipPValue(Array.from(sorted), resamples, new Rng(deriveSeed(seed, 'paired-sign-flip')));
  }
  const result: PairedComparison = {
    ...base,
    meanA,
    meanB,
    diff: meanB - meanA,
    lo,
    hi,
    test: binary ? 'mcnemar_exact' : 'sign_flip',
    pValue,
    pAdjusted: pValue,
    verdict: verdictOf(lo, hi, pValue, alpha),
  };
  if (mcnemar) result.mcnemar = mcnemar;
  return result;
}

/**
 * pairedCompare for each metric, then Holm over the family's p-values before any verdict, so asking about ten
 * metrics does not give ten chances of a spurious "credible gain". Each entry equals pairedCompare alone (same
 * seed, same CI) except for pAdjusted and verdict. CIs are not widened for multiplicity; the verdict is gated by
 * the adjusted p.
 */
export function compareMany(
  metrics: ReadonlyArray<{ metric: string; a: ReadonlyMap<string, number>; b: ReadonlyMap<string, number> }>,
  opts: Omit<PairedOptions, 'metric'> = {},
): PairedComparison[] {
  const results = metrics.map((m) => pairedCompare(m.a, m.b, { ...opts, metric: m.metric }));
  const adjusted = holm(results.map((r) => r.pValue));
  return results.map((r, i) => {
    const pAdjusted = adjusted[i] as number;
    return { ...r, pAdjusted, verdict: verdictOf(r.lo, r.hi, pAdjusted, r.alpha) };
  });
}
