// Seeded percentile bootstrap of a mean of outcomes in [0, 1].

import { Rng, deriveSeed } from '../core/rng.ts';
import { assertUnitInterval, bootstrapSettings, isBinary, mean } from './describe.ts';
import { binaryPercentileInterval, bootstrapMeans, percentileInterval } from './resample.ts';
import type { EstimateOptions, MetricEstimate } from './types.ts';

/** The estimate for no data: every number NaN, never a throw (an empty breakdown group is normal). */
export function emptyEstimate(denominator: string, level: number): MetricEstimate {
  return { value: NaN, lo: NaN, hi: NaN, n: 0, denominator, method: 'none', level };
}

/**
 * Percentile-bootstrap CI of the mean of `outcomes` (each in [0, 1]: 0/1 for pass/fail, fractions for averaged
 * trials); `value` is the sample mean. Seeded (default seed 0) and order-free: the result depends only on the
 * multiset of outcomes (values are sorted before resampling), so sharded-and-merged runs match a single run.
 * Three exact engines give the same distribution (`resampleEngine` picks): 0/1 data one binomial draw per resample
 * (≈ 1–2 ms for 10,000 resamples at n = 1,000), few distinct values (averaged trials) a multinomial chain
 * (≈ 6 ms), anything else plain index resampling (≈ 50 ms on an idle core).
 *
 * n = 0 → value/lo/hi NaN, method 'none'. n = 1 → the value with no interval (NaN bounds, method 'none'): one unit
 * shows no spread. For 0/1 data with few successes or failures the percentile interval collapses (0 of 100 gives
 * [0, 0]); `estimateRate` switches to Wilson there, and reporters should call that.
 */
export function bootstrapRate(outcomes: readonly number[], opts: EstimateOptions): MetricEstimate {
  const { level, resamples, seed } = bootstrapSettings(opts, 'bootstrapRate');
  assertUnitInterval(outcomes, 'bootstrapRate');
  const n = outcomes.length;
  const denominator = opts.denominator;
  if (n === 0) return emptyEstimate(denominator, level);
  const value = mean(outcomes);
  if (n === 1) return { value, lo: NaN, hi: NaN, n, denominator, method: 'none', level };
  const rng = new Rng(deriveSeed(seed, 'bootstrap-rate'));
  // 0/1 data: the interval is read from counts of the resampled numbers of ones (the same numbers).
  const binary = isBinary(outcomes);
  let ones = 0;
  if (binary) for (let i = 0; i < n; i++) ones += outcomes[i]!;
  const { lo, hi } = binary
    ? binaryPercentileInterval(ones, n, resamples, rng, level)
    : percentileInterval(bootstrapMeans(Float64Array.from(outcomes).sort(), resamples, rng), level);
  return { value, lo, hi, n, denominator, method: 'bootstrap', level, seed, resamples };
}
