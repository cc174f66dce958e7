import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatEstimate, isBinary, mean, quantile } from './describe.ts';

describe('quantile (type 7)', () => {
  it('matches R quantile(type = 7) on a hand-checked sample', () => {
    // R: quantile(c(1, 2, 4, 7, 11), c(0, .1, .25, .5, .9, 1)) → 1, 1.4, 2, 4, 9.4, 11
    const xs = [1, 2, 4, 7, 11];
    expect(quantile(xs, 0)).toBe(1);
    expect(quantile(xs, 0.1)).toBeCloseTo(1.4, 12);
    expect(quantile(xs, 0.25)).toBe(2);
    expect(quantile(xs, 0.5)).toBe(4);
    expect(quantile(xs, 0.9)).toBeCloseTo(9.4, 12);
    expect(quantile(xs, 1)).toBe(11);
  });
  it('interpolates between neighbours: h = (n − 1)q', () => {
    // n = 4, q = 0.5 → h = 1.5 → halfway between sorted[1] = 10 and sorted[2] = 20
    expect(quantile([0, 10, 20, 30], 0.5)).toBe(15);
    expect(quantile([0, 10, 20, 30], 0.025)).toBeCloseTo(0.75, 12);
  });
  it('handles empty, single and tied samples and rejects q outside [0, 1]', () => {
    expect(quantile([], 0.5)).toBeNaN();
    expect(quantile([3], 0.7)).toBe(3);
    expect(quantile([0.3, 0.3, 0.3], 0.123)).toBe(0.3);
    expect(() => quantile([1, 2], 1.5)).toThrow(RangeError);
    expect(() => quantile([1, 2], NaN)).toThrow(RangeError);
  });
  it('is monotone in q and stays within [min, max] (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 50 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (xs, q1, q2) => {
          const s = Float64Array.from(xs).sort();
          const [lo, hi] = q1 <= q2 ? [q1, q2] : [q2, q1];
          const a = quantile(s, lo);
          const b = quantile(s, hi);
          return a <= b + 1e-9 * (Math.abs(b) + 1) && a >= (s[0] as number) && b <= (s[s.length - 1] as number);
        },
      ),
    );
  });
});

describe('mean, isBinary', () => {
  it('mean of values, NaN when empty', () => {
    expect(mean([1, 0, 1, 1])).toBe(0.75);
    expect(mean(new Float64Array([0.2, 0.4]))).toBeCloseTo(0.3, 15);
    expect(mean([])).toBeNaN();
  });
  it('isBinary only for exact 0/1', () => {
    expect(isBinary([0, 1, 1, 0])).toBe(true);
    expect(isBinary([0, 1, 0.5])).toBe(false);
    expect(isBinary([])).toBe(true);
  });
});

describe('formatEstimate', () => {
  it('prints value [lo, hi] (n=…) with the requested digits', () => {
    expect(formatEstimate({ value: 0.7123, lo: 0.65, hi: 0.7714, n: 182 })).toBe('0.712 [0.650, 0.771] (n=182)');
    expect(formatEstimate({ value: 0.7123, lo: 0.65, hi: 0.7714, n: 182 }, 1)).toBe('0.7 [0.7, 0.8] (n=182)');
  });
  it('leaves out a missing interval and marks an undefined value', () => {
    expect(formatEstimate({ value: 1, lo: NaN, hi: NaN, n: 1 })).toBe('1.000 (n=1)');
    expect(formatEstimate({ value: NaN, lo: NaN, hi: NaN, n: 0 })).toBe('n/a (n=0)');
  });
});
