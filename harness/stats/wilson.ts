// Wilson score interval for a binomial proportion: the standard choice for small n and for rates near 0 or 1,
// where percentile-bootstrap and Wald intervals collapse.

import { assertLevel } from './describe.ts';
import { normalQuantile } from './special.ts';

/**
 * Wilson score interval (without continuity correction; the same as R's `prop.test(k, n, correct = FALSE)`):
 * center (p̂ + z²/2n)/(1 + z²/n) ± z/(1 + z²/n)·√(p̂(1 − p̂)/n + z²/4n²), z = Φ⁻¹((1 + level)/2).
 * The bounds are exactly 0 when successes = 0 and exactly 1 when successes = n. n = 0 → NaN bounds.
 */
export function wilsonInterval(successes: number, n: number, level = 0.95): { lo: number; hi: number } {
  assertLevel(level, 'wilsonInterval');
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`wilsonInterval: n must be an integer ≥ 0, got ${n}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > n) {
    throw new RangeError(`wilsonInterval: successes must be an integer in [0, n], got ${successes}`);
  }
  if (n === 0) return { lo: NaN, hi: NaN };
  const z = normalQuantile((1 + level) / 2);
  const z2 = z * z;
  const p = successes / n;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return {
    lo: successes === 0 ? 0 : Math.max(0, center - half),
    hi: successes === n ? 1 : Math.min(1, center + half),
  };
}
