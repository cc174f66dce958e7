// One entry point for "a rate with a CI" that picks an interval method a reviewer would accept and records it.

import { bootstrapRate, emptyEstimate } from './bootstrap.ts';
import { assertLevel, assertUnitInterval, isBinary } from './describe.ts';
import { DEFAULT_LEVEL, type EstimateOptions, type MetricEstimate } from './types.ts';
import { wilsonInterval } from './wilson.ts';

export interface EstimateRateOptions extends EstimateOptions {
  /** 'auto' (default) chooses as described at `estimateRate`; 'wilson' needs 0/1 outcomes. */
  method?: 'auto' | 'wilson' | 'bootstrap';
  /** 'auto' uses Wilson for 0/1 data when n < smallN. Default 30. */
  smallN?: number;
  /** 'auto' also uses Wilson for 0/1 data with fewer than minEach successes or fewer than minEach failures. Default 10. */
  minEach?: number;
}

export const DEFAULT_SMALL_N = 30;
export const DEFAULT_MIN_EACH = 10;

/**
 * A rate with a CI. With method 'auto' (default), 0/1 outcomes get the Wilson interval when n < 30 (`smallN`) or
 * when successes or failures number fewer than 10 (`minEach`), and the seeded percentile bootstrap otherwise;
 * outcomes that are not all 0/1 (averaged trials, partial credit) always get the bootstrap, since Wilson needs
 * counts — for those at small n the interval is rough, and `n` in the result says so.
 *
 * Why the second Wilson condition: the percentile bootstrap of a 0/1 mean collapses near 0 and 1 (0 of 100
 * gives [0, 0]); its exact coverage at n = 100 is 87% for p = 0.02, against Wilson's 95%. With this rule, exact
 * binomial coverage (computed offline over p ∈ (0, 1), n = 30…1,000) has Wilson's own worst case and averages
 * ≈ 95.5%; wilson.test.ts simulates the p = 0.02 case.
 * The chosen method is recorded in `method`.
 */
export function estimateRate(outcomes: readonly number[], opts: EstimateRateOptions): MetricEstimate {
  const level = opts.level ?? DEFAULT_LEVEL;
  const requested = opts.method ?? 'auto';
  const smallN = opts.smallN ?? DEFAULT_SMALL_N;
  const minEach = opts.minEach ?? DEFAULT_MIN_EACH;
  assertLevel(level, 'estimateRate');
  assertUnitInterval(outcomes, 'estimateRate');
  const n = outcomes.length;
  if (n === 0) return emptyEstimate(opts.denominator, level);
  const binary = isBinary(outcomes);
  if (requested === 'wilson' && !binary) {
    throw new RangeError('estimateRate: the Wilson interval needs 0/1 outcomes; use the bootstrap for fractions');
  }
  let k = 0;
  if (binary) for (const x of outcomes) k += x;
  const useWilson =
    requested === 'wilson' || (requested === 'auto' && binary && (n < smallN || Math.min(k, n - k) < minEach));
  if (!useWilson) return bootstrapRate(outcomes, opts);
  const { lo, hi } = wilsonInterval(k, n, level);
  return { value: k / n, lo, hi, n, denominator: opts.denominator, method: 'wilson', level };
}
