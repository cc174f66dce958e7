// Seeded percentile bootstrap of a ratio of sums, Σnum / Σden over units (tokens per correct answer).

import { Rng, deriveSeed } from '../core/rng.ts';
import { bootstrapSettings } from './describe.ts';
import { emptyEstimate } from './bootstrap.ts';
import { percentileInterval, resampleRatios } from './resample.ts';
import type { EstimateOptions, MetricEstimate } from './types.ts';

/**
 * The pooled ratio Σnum / Σden (e.g. total tokens / correct answers) with a percentile-bootstrap CI that resamples
 * whole units (instances), so a costly instance moves numerator and denominator together. n counts units.
 * Resamples with Σden = 0 are dropped from the interval (they have no ratio); with Σden = 0 overall the value
 * is NaN. Not limited to [0, 1].
 */
export function ratioEstimate(num: readonly number[], den: readonly number[], opts: EstimateOptions): MetricEstimate {
  if (num.length !== den.length) throw new RangeError('ratioEstimate: num and den differ in length');
  const { level, resamples, seed } = bootstrapSettings(opts, 'ratioEstimate');
  const n = num.length;
  if (n === 0) return emptyEstimate(opts.denominator, level);
  const sn = num.reduce((s, x) => s + x, 0);
  const sd = den.reduce((s, x) => s + x, 0);
  const value = sd === 0 ? NaN : sn / sd;
  if (n === 1 || sd === 0) return { value, lo: NaN, hi: NaN, n, denominator: opts.denominator, method: 'none', level };
  const stats = resampleRatios(num, den, resamples, new Rng(deriveSeed(seed, 'bootstrap-ratio')))
    .filter(Number.isFinite)
    .sort();
  const { lo, hi } = percentileInterval(stats, level);
  return { value, lo, hi, n, denominator: opts.denominator, method: 'bootstrap', level, seed, resamples };
}
