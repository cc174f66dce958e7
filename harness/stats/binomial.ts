// Exact binomial test (used by McNemar) and an exact binomial sampler (used by the 0/1 bootstrap fast path).

import type { Rng } from '../core/rng.ts';
import { binomialLogPmf } from './special.ts';

function assertCount(k: number, n: number, what: string): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`${what}: n must be an integer ≥ 0, got ${n}`);
  if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError(`${what}: k must be an integer in [0, n], got ${k}`);
}

/**
 * Exact two-sided binomial test of H0: X ~ Binomial(n, p), given k observed successes: the probability of all
 * outcomes no more likely than the observed one (the "minimum-likelihood" rule of R's binom.test, with its 1e-7
 * relative tolerance so ties of equally likely outcomes are not lost to rounding). For p = ½ this is
 * 2·min(P(X ≤ k), P(X ≥ k)), capped at 1. Summed in log space, so it stays exact (≈1e-12 relative) for n in the
 * thousands and p-values far below 1e-300 underflow only at the very end. n = 0 → 1.
 */
export function exactBinomialTwoSided(k: number, n: number, p = 0.5): number {
  assertCount(k, n, 'exactBinomialTwoSided');
  if (!(p >= 0 && p <= 1)) throw new RangeError(`exactBinomialTwoSided: p must be in [0, 1], got ${p}`);
  if (n === 0) return 1;
  const logD = binomialLogPmf(k, n, p) + Math.log1p(1e-7);
  const logs = new Float64Array(n + 1);
  let max = -Infinity;
  for (let i = 0; i <= n; i++) {
    const l = binomialLogPmf(i, n, p);
    logs[i] = l;
    if (l <= logD && l > max) max = l;
  }
  let s = 0;
  let included = 0;
  for (let i = 0; i <= n; i++) {
    const l = logs[i] as number;
    if (l <= logD) {
      s += Math.exp(l - max);
      included++;
    }
  }
  if (included === n + 1) return 1; // every outcome counts: exactly 1, not 1 minus rounding
  return Math.min(1, Math.exp(max + Math.log(s)));
}

/**
 * Draws from Binomial(n, p) by inverting a precomputed CDF (one uniform per draw: the smallest k whose CDF exceeds
 * it), so it is an exact sampler up to floating-point rounding of the CDF and the 2⁻³² grid of `Rng.next()`.
 * A guide table (Chen and Asau's method) gives, for each of n + 1 equal slices of the uniform's range, the first
 * candidate cell: the search then takes one or two steps on average instead of a binary search's log₂ n (the 0/1
 * bootstrap draws once per resample, millions of times per report). Any start gives the same k: the steps move
 * to the smallest k with CDF > u from either side.
 */
export class BinomialSampler {
  private readonly cdf: Float64Array;
  private readonly total: number;
  private readonly guide: Int32Array;
  constructor(
    readonly n: number,
    readonly p: number,
  ) {
    assertCount(0, n, 'BinomialSampler');
    if (!(p >= 0 && p <= 1)) throw new RangeError(`BinomialSampler: p must be in [0, 1], got ${p}`);
    this.cdf = new Float64Array(n + 1);
    // Past the mode the pmf only falls: a term below a quarter of the running sum's last place leaves the sum as it
    // is, and so does every later one, so the rest of the CDF is that sum, the same numbers as adding them all (the
    // 0/1 bootstrap builds a sampler per metric; the far upper tail was most of the work at small p).
    const mode = Math.floor((n + 1) * p);
    let acc = 0;
    let i = 0;
    for (; i <= n; i++) {
      const t = Math.exp(binomialLogPmf(i, n, p));
      if (i > mode && t < acc * 2 ** -55) break;
      acc += t;
      this.cdf[i] = acc;
    }
    this.cdf.fill(acc, i);
    this.total = acc; // 1 up to rounding; scaling the uniform by it keeps the last cell reachable
    this.guide = new Int32Array(n + 1);
    for (let j = 0, k = 0; j <= n; j++) {
      const t = (j * acc) / (n + 1);
      while (k < n && (this.cdf[k] as number) <= t) k++;
      this.guide[j] = k;
    }
  }
  draw(rng: Rng): number {
    const u = rng.next() * this.total;
    const cdf = this.cdf;
    const n = this.n;
    let k = this.guide[Math.min(n, Math.floor((u * (n + 1)) / this.total))] as number;
    while (k > 0 && (cdf[k - 1] as number) > u) k--;
    while (k < n && (cdf[k] as number) <= u) k++;
    return k;
  }
}

/**
 * Draws from Binomial(n, p) for a fixed p and an n that changes from draw to draw (one stage of the multinomial
 * bootstrap chain): exact inversion with the outcomes taken in the order mode, mode−1, mode+1, mode−2, … (any
 * fixed order inverts exactly), pmf values by recurrence from the mode, whose pmf is cached per n. Expected work
 * is O(√(np(1−p))) steps.
 */
export class VaryingBinomial {
  private readonly r: number;
  /** pmf(mode) by n, NaN until computed (a typed array: a Map lookup per draw was a tenth of the multinomial chain). */
  private modePmf = new Float64Array(0);
  constructor(readonly p: number) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`VaryingBinomial: p must be in [0, 1], got ${p}`);
    this.r = p / (1 - p);
  }
  draw(n: number, rng: Rng): number {
    const p = this.p;
    if (n === 0 || p <= 0) return 0;
    if (p >= 1) return n;
    const mode = Math.min(n, Math.floor((n + 1) * p));
    let pm = n < this.modePmf.length ? (this.modePmf[n] as number) : NaN;
    if (Number.isNaN(pm)) {
      pm = Math.exp(binomialLogPmf(mode, n, p));
      if (n >= this.modePmf.length) {
        const grown = new Float64Array(Math.max(n + 1, 2 * this.modePmf.length)).fill(NaN);
        grown.set(this.modePmf);
        this.modePmf = grown;
      }
      this.modePmf[n] = pm;
    }
    return fromMode(n, mode, pm, this.r, rng.next());
  }
}

/**
 * The inversion of `uniform` from the mode outwards (mode, mode − 1, mode + 1, …), pmf(mode) = `pm`, r = p/(1 − p):
 * later pmf values by recurrence.
 */
function fromMode(n: number, mode: number, pm: number, r: number, uniform: number): number {
  let u = uniform - pm;
  if (u < 0) return mode;
  let lo = mode;
  let hi = mode;
  let plo = pm;
  let phi = pm;
  for (;;) {
    if (lo > 0) {
      plo *= lo / ((n - lo + 1) * r); // pmf(k − 1) = pmf(k) · k/(n − k + 1) · (1 − p)/p
      lo--;
      u -= plo;
      if (u < 0) return lo;
    }
    if (hi < n) {
      phi *= ((n - hi) * r) / (hi + 1); // pmf(k + 1) = pmf(k) · (n − k)/(k + 1) · p/(1 − p)
      hi++;
      u -= phi;
      if (u < 0) return hi;
    }
    // Only rounding can leave mass unassigned (≈1e-15): give it to the mode.
    if (lo === 0 && hi === n) return mode;
  }
}

/** One draw from Binomial(n, p) (see `VaryingBinomial`). */
export function binomialDraw(n: number, p: number, rng: Rng): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`binomialDraw: p must be in [0, 1], got ${p}`);
  if (n === 0 || p <= 0) return 0;
  if (p >= 1) return n;
  // one draw: no per-n cache to fill (VaryingBinomial's grows to n entries)
  const mode = Math.min(n, Math.floor((n + 1) * p));
  return fromMode(n, mode, Math.exp(binomialLogPmf(mode, n, p)), p / (1 - p), rng.next());
}
