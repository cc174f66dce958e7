import { describe, expect, it } from 'vitest';
import { ratioEstimate } from './ratio.ts';

describe('ratioEstimate (Σnum / Σden with a unit bootstrap)', () => {
  it('is the pooled ratio, not the mean of per-unit ratios, with an interval around it', () => {
    const e = ratioEstimate([100, 300, 200, 400], [1, 0, 1, 1], { denominator: 'tokens per correct answer' });
    expect(e.value).toBeCloseTo(1000 / 3);
    expect(e.lo).toBeLessThanOrEqual(e.value);
    expect(e.hi).toBeGreaterThanOrEqual(e.value);
    expect(e.n).toBe(4);
  });
  it('has no value without any correct answer, and no interval for one unit', () => {
    expect(ratioEstimate([5, 5], [0, 0], { denominator: 'x' }).value).toBeNaN();
    expect(ratioEstimate([5], [1], { denominator: 'x' })).toMatchObject({ value: 5, method: 'none' });
  });
  it('is seeded: the same data gives the same interval', () => {
    const a = ratioEstimate([1, 2, 3, 4, 5], [1, 1, 0, 1, 1], { denominator: 'x', seed: 3 });
    const b = ratioEstimate([1, 2, 3, 4, 5], [1, 1, 0, 1, 1], { denominator: 'x', seed: 3 });
    expect([a.lo, a.hi]).toEqual([b.lo, b.hi]);
  });
});
