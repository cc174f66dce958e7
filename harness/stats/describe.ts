// Small descriptive helpers the estimators and the reporters share.

import { DEFAULT_LEVEL, DEFAULT_RESAMPLES, type MetricEstimate } from './types.ts';

/** Arithmetic mean; NaN for an empty list. Plain left-to-right sum (inputs here are ≤ 1e6 values in [0,1]). */
export function mean(xs: ArrayLike<number>): number {
  const n = xs.length;
  if (n === 0) return NaN;
  let s = 0;
  for (let i = 0; i < n; i++) s += xs[i] as number;
  return s / n;
}

/**
 * Quantile of an ascending-sorted sample, Hyndman & Fan type 7 (the default of R's `quantile` and of NumPy):
 * h = (n − 1)·q, then linear interpolation between the order statistics at floor(h) and floor(h) + 1.
 * So q = 0 is the minimum and q = 1 the maximum. NaN for an empty sample. The input is not checked for order.
 */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile: q must be in [0, 1], got ${q}`);
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const i = Math.floor(h);
  const x0 = sorted[i] as number;
  if (i + 1 >= n) return x0;
  const x1 = sorted[i + 1] as number;
  // Written so equal neighbours give exactly that value (no 0·∞ or rounding drift on ties).
  return x0 === x1 ? x0 : x0 + (h - i) * (x1 - x0);
}

/**
 * `0.712 [0.650, 0.771] (n=182)`. Without an interval (method 'none' or NaN bounds) the brackets are left out;
 * an undefined value (n = 0) prints as `n/a (n=0)`.
 */
export function formatEstimate(e: Pick<MetricEstimate, 'value' | 'lo' | 'hi' | 'n'>, digits = 3): string {
  const f = (x: number) => x.toFixed(digits);
  if (!Number.isFinite(e.value)) return `n/a (n=${e.n})`;
  if (!Number.isFinite(e.lo) || !Number.isFinite(e.hi)) return `${f(e.value)} (n=${e.n})`;
  return `${f(e.value)} [${f(e.lo)}, ${f(e.hi)}] (n=${e.n})`;
}

/** Throws unless every value is a finite number in [0, 1]; names the offending index. */
export function assertUnitInterval(xs: ArrayLike<number>, what: string): void {
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i] as number;
    if (!(x >= 0 && x <= 1)) throw new RangeError(`${what}: value at index ${i} must be in [0, 1], got ${x}`);
  }
}

/** True when every value is exactly 0 or 1. */
export function isBinary(xs: ArrayLike<number>): boolean {
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (x !== 0 && x !== 1) return false;
  }
  return true;
}

/** Throws unless 0 < level < 1. */
export function assertLevel(level: number, what: string): void {
  if (!(level > 0 && level < 1)) throw new RangeError(`${what}: level must be in (0, 1), got ${level}`);
}

/** Throws unless resamples is an integer ≥ 1. */
export function assertResamples(resamples: number, what: string): void {
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new RangeError(`${what}: resamples must be an integer ≥ 1, got ${resamples}`);
  }
}

/** A bootstrap's level, resamples and seed, the defaults filled in and each checked (an error names `what`). */
export function bootstrapSettings(
  opts: { level?: number; resamples?: number; seed?: number },
  what: string,
): { level: number; resamples: number; seed: number } {
  const level = opts.level ?? DEFAULT_LEVEL;
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  assertLevel(level, what);
  assertResamples(resamples, what);
  return { level, resamples, seed: opts.seed ?? 0 };
}
