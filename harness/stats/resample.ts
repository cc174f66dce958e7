// The resampling engines behind every bootstrap here. All exact: indices are exactly uniform (no modulo bias), and
// the 0/1 (binomial) and few-distinct-values (multinomial) shortcuts draw from exactly the distribution that plain
// index resampling would give, only faster.

import type { Rng } from '../core/rng.ts';
import { BinomialSampler, VaryingBinomial } from './binomial.ts';
import { quantilesBySelection } from './select.ts';

const TWO32 = 4294967296;

/**
 * How many base-n digits one 32-bit word of `Rng.next()` yields, and the rejection limit that makes them exactly
 * uniform: a word x < limit (a multiple of n^digits) is uniform on [0, limit), so x mod n^digits is uniform and
 * its base-n digits are independent uniform indices in [0, n). For n = 1,000 that is 3 indices per word (6.9%
 * of words rejected), a third of the PRNG calls of one word per index.
 * (Math.floor(x / n) is exact here: the quotient's rounding error is far below the 1/n gap to the next integer.)
 */
export function indexDigits(n: number): { digits: number; limit: number } {
  if (!Number.isInteger(n) || n < 1 || n > TWO32) throw new RangeError(`indexDigits: n must be in [1, 2^32], got ${n}`);
  let digits = 1;
  let span = n;
  while (span * n <= TWO32 && digits < 32) {
    span *= n;
    digits++;
  }
  return { digits, limit: Math.floor(TWO32 / span) * span };
}

/**
 * Means of `resamples` bootstrap resamples (n draws with replacement) of `values`: exact for any numbers.
 * Costs about resamples·n/3 PRNG calls for n ≈ 1,000.
 */
export function resampleMeans(values: ArrayLike<number>, resamples: number, rng: Rng): Float64Array {
  const v = Float64Array.from(values);
  const n = v.length;
  const out = new Float64Array(resamples);
  if (n === 0) return out.fill(NaN);
  const { digits, limit } = indexDigits(n);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    let i = 0;
    while (i < n) {
      let x = rng.next() * TWO32;
      if (x >= limit) continue;
      for (let d = 0; d < digits && i < n; d++, i++) {
        const q = Math.floor(x / n);
        s += v[x - q * n] as number;
        x = q;
      }
    }
    out[r] = s / n;
  }
  return out;
}

/**
 * Ratios Σnum/Σden over `resamples` resamples of the units (n draws with replacement) — the cluster bootstrap's
 * pooled rate, with num = a cluster's sum of outcomes and den = its item count. Same index stream as
 * `resampleMeans`, so with den ≡ 1 the two give identical numbers for the same Rng.
 */
export function resampleRatios(
  num: ArrayLike<number>,
  den: ArrayLike<number>,
  resamples: number,
  rng: Rng,
): Float64Array {
  if (num.length !== den.length) throw new RangeError('resampleRatios: num and den differ in length');
  const a = Float64Array.from(num);
  const b = Float64Array.from(den);
  const n = a.length;
  const out = new Float64Array(resamples);
  if (n === 0) return out.fill(NaN);
  const { digits, limit } = indexDigits(n);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    let c = 0;
    let i = 0;
    while (i < n) {
      let x = rng.next() * TWO32;
      if (x >= limit) continue;
      for (let d = 0; d < digits && i < n; d++, i++) {
        const q = Math.floor(x / n);
        const j = x - q * n;
        s += a[j] as number;
        c += b[j] as number;
        x = q;
      }
    }
    out[r] = s / c;
  }
  return out;
}

/**
 * For 0/1 data with `successes` ones out of n, the same distribution as `resampleMeans`: the number of ones in a
 * resample is exactly Binomial(n, successes/n), so one binomial draw (CDF inversion) replaces n index draws.
 */
export function resampleBinaryMeans(successes: number, n: number, resamples: number, rng: Rng): Float64Array {
  const sampler = new BinomialSampler(n, successes / n);
  const out = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) out[r] = sampler.draw(rng) / n;
  return out;
}

/**
 * percentileInterval(resampleBinaryMeans(successes, n, resamples, rng), level), the same numbers, without the
 * resampled means: each draw is counted by its number of ones, and the type-7 quantiles are read from the counts
 * (the order statistics a sort would give). A report's many 0/1 metrics each drew 10,000 means only to select two.
 */
export function binaryPercentileInterval(
  successes: number,
  n: number,
  resamples: number,
  rng: Rng,
  level: number,
): { lo: number; hi: number } {
  const sampler = new BinomialSampler(n, successes / n);
  const counts = new Uint32Array(n + 1);
  for (let r = 0; r < resamples; r++) counts[sampler.draw(rng)]!++;
  const a = (1 - level) / 2;
  return { lo: countedQuantile(counts, n, resamples, a), hi: countedQuantile(counts, n, resamples, 1 - a) };
}

/** The type-7 quantile at q of `total` means k/n, counts[k] of them each, as quantilesBySelection gives it. */
function countedQuantile(counts: Uint32Array, n: number, total: number, q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile: q must be in [0, 1], got ${q}`);
  const h = (total - 1) * q;
  const i = Math.floor(h);
  // The i-th and (i+1)-th smallest (0-based): the first k whose running count passes each index.
  let k = 0;
  let seen = counts[0]!;
  while (seen <= i) seen += counts[++k]!;
  const x0 = k / n;
  if (i + 1 >= total) return x0;
  while (seen <= i + 1) seen += counts[++k]!;
  const x1 = k / n;
  return x0 === x1 ? x0 : x0 + (h - i) * (x1 - x0);
}

/**
 * For data with few distinct values (averaged trials: 0, ⅓, ⅔, 1), the same distribution as `resampleMeans`: a
 * resample is fully described by how often each distinct value is drawn, a Multinomial(n; counts/n) vector,
 * drawn exactly as a chain of binomials c_j ~ Binomial(n − Σ_{i<j} c_i, counts_j / Σ_{i≥j} counts_i).
 * Costs (m − 1) binomial draws per resample instead of n index draws.
 */
export function resampleDiscreteMeans(
  distinct: ArrayLike<number>,
  counts: ArrayLike<number>,
  resamples: number,
  rng: Rng,
): Float64Array {
  const m = distinct.length;
  if (m !== counts.length || m === 0) throw new RangeError('resampleDiscreteMeans: need one count per distinct value');
  const v = Float64Array.from(distinct);
  const c = Float64Array.from(counts);
  const tail = new Float64Array(m); // tail[j] = Σ_{i ≥ j} counts_i
  for (let j = m - 1, s = 0; j >= 0; j--) tail[j] = s += c[j] as number;
  const n = tail[0] as number;
  const stages = Array.from({ length: m - 1 }, (_, j) => new VaryingBinomial((c[j] as number) / (tail[j] as number)));
  const out = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let left = n;
    let s = 0;
    for (let j = 0; j < m - 1 && left > 0; j++) {
      const k = (stages[j] as VaryingBinomial).draw(left, rng);
      s += k * (v[j] as number);
      left -= k;
    }
    s += left * (v[m - 1] as number);
    out[r] = s / n;
  }
  return out;
}

/** Distinct values of an ascending-sorted sample and how often each occurs. */
export function tally(sorted: ArrayLike<number>): { distinct: number[]; counts: number[] } {
  const distinct: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const x = sorted[i] as number;
    const last = distinct.length - 1;
    if (last >= 0 && distinct[last] === x) counts[last] = (counts[last] as number) + 1;
    else {
      distinct.push(x);
      counts.push(1);
    }
  }
  return { distinct, counts };
}

export type ResampleEngine = 'binary' | 'multinomial' | 'index';

/**
 * Which exact engine resamples n values with `distinct` distinct values fastest: the binomial shortcut for 0/1
 * data, the multinomial chain when (distinct − 1) binomial draws cost less than n index draws (measured: one
 * draw costs 10–45 index draws; 40 keeps the switch conservative), plain index resampling otherwise. All three
 * give the same distribution.
 */
export function resampleEngine(n: number, distinct: number, binary: boolean): ResampleEngine {
  if (binary) return 'binary';
  return (distinct - 1) * 40 < n ? 'multinomial' : 'index';
}

/**
 * Bootstrap means of an ascending-sorted sample through the fastest exact engine (see `resampleEngine`). Because
 * it sees only the sorted values, the result depends on the multiset, not on the input order.
 */
export function bootstrapMeans(sorted: Float64Array, resamples: number, rng: Rng): Float64Array {
  const n = sorted.length;
  if (n === 0) return new Float64Array(resamples).fill(NaN);
  const { distinct, counts } = tally(sorted);
  const binary = distinct.every((x) => x === 0 || x === 1);
  switch (resampleEngine(n, distinct.length, binary)) {
    case 'binary': {
      const ones = distinct[distinct.length - 1] === 1 ? (counts[counts.length - 1] as number) : 0;
      return resampleBinaryMeans(ones, n, resamples, rng);
    }
    case 'multinomial':
      return resampleDiscreteMeans(distinct, counts, resamples, rng);
    case 'index':
      return resampleMeans(sorted, resamples, rng);
  }
}

/** Percentile interval of bootstrap statistics (reorders `stats` in place): type-7 quantiles at (1 ∓ level)/2. */
export function percentileInterval(stats: Float64Array, level: number): { lo: number; hi: number } {
  const a = (1 - level) / 2;
  const [lo, hi] = quantilesBySelection(stats, [a, 1 - a]) as [number, number];
  return { lo, hi };
}
