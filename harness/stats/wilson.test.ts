import { describe, expect, it } from 'vitest';
import { Rng, deriveSeed } from '../core/rng.ts';
import { bootstrapRate } from './bootstrap.ts';
import { estimateRate } from './estimate.ts';
import { wilsonInterval } from './wilson.ts';

describe('wilsonInterval', () => {
  // Reference values: R prop.test(k, n, correct = FALSE)$conf.int and scipy.stats.binomtest(k, n)
  // .proportion_ci(method = 'wilson'), which agree to all printed digits.
  const known: Array<[number, number, number, number, number]> = [
    [0, 10, 0.95, 0, 0.27753279986288926],
    [5, 10, 0.95, 0.236593090512564, 0.7634069094874361],
    [10, 10, 0.95, 0.7224672001371109, 1],
    [1, 10, 0.95, 0.017876213095072896, 0.4041500267952385],
    [81, 263, 0.95, 0.2552885198782742, 0.36620957698280004],
    [3, 7, 0.9, 0.18644319036395607, 0.7105229089864071],
    [0, 10, 0.9, 0, 0.21294197008340698],
  ];
  it.each(known)('%i of %i at level %f matches published values to 1e-10', (k, n, level, lo, hi) => {
    const w = wilsonInterval(k, n, level);
    expect(Math.abs(w.lo - lo)).toBeLessThan(1e-10);
    expect(Math.abs(w.hi - hi)).toBeLessThan(1e-10);
  });
  it('hand-computed 0/10: upper end z²/(n + z²), lower end exactly 0', () => {
    const z = 1.959963984540054;
    expect(wilsonInterval(0, 10).hi).toBeCloseTo((z * z) / (10 + z * z), 12);
    expect(wilsonInterval(0, 10).lo).toBe(0);
    expect(wilsonInterval(10, 10).hi).toBe(1);
  });
  it('n = 0 gives NaN; impossible counts throw', () => {
    expect(wilsonInterval(0, 0).lo).toBeNaN();
    expect(() => wilsonInterval(11, 10)).toThrow(RangeError);
    expect(() => wilsonInterval(2.5, 10)).toThrow(RangeError);
    expect(() => wilsonInterval(2, 10, 1)).toThrow(/level/);
  });
});

describe('estimateRate', () => {
  it('uses Wilson below n = 30 and records it', () => {
    const e = estimateRate([1, 1, 0, 1, 0, 1, 1, 1, 1, 0], { denominator: 'rows' });
    expect(e).toMatchObject({ value: 0.7, n: 10, method: 'wilson', denominator: 'rows', level: 0.95 });
    const w = wilsonInterval(7, 10);
    expect([e.lo, e.hi]).toEqual([w.lo, w.hi]);
    expect(e.seed).toBeUndefined();
  });
  it('uses the bootstrap from n = 30 on when both outcomes are common, with seed and resamples', () => {
    const xs = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 0 : 1)); // 20 of 30
    const e = estimateRate(xs, { denominator: 'rows', seed: 9 });
    expect(e).toMatchObject({ method: 'bootstrap', n: 30, seed: 9, resamples: 10_000 });
    expect(e).toEqual(bootstrapRate(xs, { denominator: 'rows', seed: 9 }));
  });
  it('keeps Wilson for rare successes or failures at any n (the bootstrap collapses there)', () => {
    const allPass = new Array(500).fill(1);
    const e = estimateRate(allPass, { denominator: 'rows' });
    expect(e.method).toBe('wilson');
    expect(e.lo).toBeLessThan(1);
    const rare = Array.from({ length: 200 }, (_, i) => (i < 9 ? 1 : 0));
    expect(estimateRate(rare, { denominator: 'rows' }).method).toBe('wilson');
    const ten = Array.from({ length: 200 }, (_, i) => (i < 10 ? 1 : 0));
    expect(estimateRate(ten, { denominator: 'rows' }).method).toBe('bootstrap');
    expect(estimateRate(rare, { denominator: 'rows', minEach: 0 }).method).toBe('bootstrap');
  });
  it('honours an explicit method and smallN; Wilson refuses fractional outcomes', () => {
    const xs = Array.from({ length: 100 }, (_, i) => (i % 2 ? 1 : 0));
    expect(estimateRate(xs, { denominator: 'x', method: 'wilson' }).method).toBe('wilson');
    expect(estimateRate(xs.slice(0, 20), { denominator: 'x', method: 'bootstrap' }).method).toBe('bootstrap');
    expect(estimateRate(xs, { denominator: 'x', smallN: 200 }).method).toBe('wilson');
    expect(estimateRate([0.5, 1, 0], { denominator: 'x' }).method).toBe('bootstrap');
    expect(() => estimateRate([0.5, 1], { denominator: 'x', method: 'wilson' })).toThrow(/0\/1/);
  });
  it('n = 0 gives NaNs, never a throw', () => {
    const e = estimateRate([], { denominator: 'x' });
    expect(e).toMatchObject({ n: 0, method: 'none' });
    expect(e.value).toBeNaN();
  });
  it('covers a rare rate (p = 0.02, n = 100) where the plain percentile bootstrap does not', () => {
    const rng = new Rng(deriveSeed(5, 'rare-coverage'));
    const p = 0.02;
    let covEstimate = 0;
    let covBootstrap = 0;
    const datasets = 2000;
    for (let d = 0; d < datasets; d++) {
      const xs = Array.from({ length: 100 }, () => (rng.chance(p) ? 1 : 0));
      const e = estimateRate(xs, { denominator: 'x', seed: d, resamples: 1000 });
      const b = bootstrapRate(xs, { denominator: 'x', seed: d, resamples: 1000 });
      if (e.lo <= p && p <= e.hi) covEstimate++;
      if (b.lo <= p && p <= b.hi) covBootstrap++;
    }
    // exact values: Wilson 94.9%, percentile bootstrap 86.6%
    expect(covEstimate / datasets).toBeGreaterThanOrEqual(0.93);
    expect(covBootstrap / datasets).toBeLessThan(0.9);
  });
});
