import { describe, expect, it } from 'vitest';
import { Rng, deriveSeed } from '../core/rng.ts';
import { bootstrapRate } from './bootstrap.ts';
import { clusterBootstrapRate } from './cluster.ts';
import { resampleMeans, resampleRatios } from './resample.ts';

describe('clusterBootstrapRate', () => {
  it('resampleRatios with unit denominators is exactly resampleMeans (same index stream)', () => {
    const rng = new Rng(4);
    const xs = Array.from({ length: 37 }, () => rng.next());
    const a = resampleMeans(xs, 500, new Rng(10));
    const b = resampleRatios(xs, new Array(37).fill(1), 500, new Rng(10));
    expect(Array.from(b)).toEqual(Array.from(a));
  });
  it('with every cluster of size 1 it behaves like the plain bootstrap', () => {
    const rng = new Rng(21);
    for (const xs of [
      Array.from({ length: 300 }, () => (rng.chance(0.4) ? 1 : 0)),
      Array.from({ length: 300 }, () => Math.round(rng.next() * 4) / 4),
    ]) {
      const ids = xs.map((_, i) => `case-${i}`);
      const c = clusterBootstrapRate(xs, ids, { denominator: 'cases', seed: 2 });
      const p = bootstrapRate(xs, { denominator: 'cases', seed: 2 });
      expect(c.value).toBeCloseTo(p.value, 12);
      expect(c).toMatchObject({ n: 300, clusters: 300, method: 'cluster_bootstrap' });
      // same estimator, independent resampling noise: the ends agree to well within a tenth of the width
      expect(Math.abs(c.lo - p.lo)).toBeLessThan(0.1 * (p.hi - p.lo));
      expect(Math.abs(c.hi - p.hi)).toBeLessThan(0.1 * (p.hi - p.lo));
    }
  });
  it('is wider than the plain CI when outcomes are strongly correlated within clusters', () => {
    // 30 families of 10 cases; a family is mostly all-pass or all-fail (design effect ≈ 1 + 9·ρ with ρ ≈ 0.8)
    const rng = new Rng(33);
    const xs: number[] = [];
    const fam: string[] = [];
    for (let g = 0; g < 30; g++) {
      const p = rng.chance(0.5) ? 0.95 : 0.05;
      for (let i = 0; i < 10; i++) {
        xs.push(rng.chance(p) ? 1 : 0);
        fam.push(`family-${g}`);
      }
    }
    const c = clusterBootstrapRate(xs, fam, { denominator: 'cases', seed: 1 });
    const p = bootstrapRate(xs, { denominator: 'cases', seed: 1 });
    expect(c.hi - c.lo).toBeGreaterThan(2 * (p.hi - p.lo));
    expect(c.clusters).toBe(30);
  });
  it('keeps its coverage on clustered data where the plain bootstrap under-covers', () => {
    // 40 clusters of 5 items, cluster rate ~ U(0, 1): true mean 0.5. 600 datasets × 1,000 resamples.
    const rng = new Rng(deriveSeed(99, 'cluster-coverage'));
    let coveredCluster = 0;
    let coveredPlain = 0;
    const datasets = 600;
    for (let d = 0; d < datasets; d++) {
      const xs: number[] = [];
      const cl: string[] = [];
      for (let g = 0; g < 40; g++) {
        const p = rng.next();
        for (let i = 0; i < 5; i++) {
          xs.push(rng.chance(p) ? 1 : 0);
          cl.push(`g${g}`);
        }
      }
      const c = clusterBootstrapRate(xs, cl, { denominator: 'x', seed: d, resamples: 1000 });
      const p = bootstrapRate(xs, { denominator: 'x', seed: d, resamples: 1000 });
      if (c.lo <= 0.5 && 0.5 <= c.hi) coveredCluster++;
      if (p.lo <= 0.5 && 0.5 <= p.hi) coveredPlain++;
    }
    expect(coveredCluster / datasets).toBeGreaterThan(0.91); // 40 clusters: slight small-sample under-coverage
    expect(coveredPlain / datasets).toBeLessThan(0.88); // ignores the within-cluster correlation
  });
  it('does not depend on item order, and is reproducible for a seed', () => {
    const xs = [1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0.5, 1];
    const cl = ['a', 'a', 'b', 'b', 'c', 'c', 'd', 'd', 'e', 'e', 'f', 'f'];
    const perm = new Rng(5).shuffle(xs.map((_, i) => i));
    const a = clusterBootstrapRate(xs, cl, { denominator: 'x', seed: 3 });
    const b = clusterBootstrapRate(
      perm.map((i) => xs[i]!),
      perm.map((i) => cl[i]!),
      { denominator: 'x', seed: 3 },
    );
    expect(b).toEqual(a);
    expect(clusterBootstrapRate(xs, cl, { denominator: 'x', seed: 4 })).not.toEqual(a);
  });
  it('n = 0 gives NaNs; one cluster gives no interval; mismatched lengths throw', () => {
    const e = clusterBootstrapRate([], [], { denominator: 'x' });
    expect(e).toMatchObject({ n: 0, method: 'none', clusters: 0 });
    expect(e.value).toBeNaN();
    const one = clusterBootstrapRate([1, 0, 1], ['a', 'a', 'a'], { denominator: 'x' });
    expect(one).toMatchObject({ n: 3, clusters: 1, method: 'none' });
    expect(one.value).toBeCloseTo(2 / 3, 15);
    expect(one.lo).toBeNaN();
    expect(() => clusterBootstrapRate([1, 0], ['a'], { denominator: 'x' })).toThrow(/2 outcomes but 1/);
  });
});
