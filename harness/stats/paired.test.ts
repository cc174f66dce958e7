import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Rng, deriveSeed } from '../core/rng.ts';
import { exactBinomialTwoSided } from './binomial.ts';
import { binomialRow, ratio } from './exact-reference.ts';
import { compareMany, pairedCompare, signFlipPValue, verdictOf } from './paired.ts';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `inst-${String(i).padStart(4, '0')}`);

/** Run A passes `passA` of n; B turns `gains` of A's failures into passes and `losses` of A's passes into failures. */
function plantedRuns(n: number, passA: number, gains: number, losses: number, seed: number) {
  const rng = new Rng(seed);
  const order = rng.shuffle(ids(n));
  const a = new Map<string, number>();
  const b = new Map<string, number>();
  order.forEach((id, i) => {
    const pa = i < passA ? 1 : 0;
    let pb = pa;
    if (pa === 0 && i - passA < gains) pb = 1;
    if (pa === 1 && i < losses) pb = 0;
    a.set(id, pa);
    b.set(id, pb);
  });
  return { a, b };
}

/** Exact two-sided McNemar p from BigInt binomials: 2·P(X ≤ min(b01, b10)), X ~ Bin(b01 + b10, ½), capped at 1. */
function mcnemarExact(b01: number, b10: number): number {
  const m = b01 + b10;
  const row = binomialRow(m);
  let tail = 0n;
  for (let i = 0; i <= Math.min(b01, b10); i++) tail += row[i] as bigint;
  return Math.min(1, 2 * ratio(tail, 2n ** BigInt(m)));
}

describe('verdictOf: the definition of "credible"', () => {
  it('needs adjusted p ≤ alpha AND a CI that excludes 0; the CI side gives the direction', () => {
    expect(verdictOf(0.01, 0.2, 0.001, 0.05)).toBe('credible gain');
    expect(verdictOf(-0.2, -0.01, 0.001, 0.05)).toBe('credible harm');
    expect(verdictOf(0.01, 0.2, 0.05, 0.05)).toBe('credible gain'); // p = alpha counts
    expect(verdictOf(0.01, 0.2, 0.0501, 0.05)).toBe('no credible change'); // CI alone is not enough
    expect(verdictOf(-0.01, 0.2, 0.001, 0.05)).toBe('no credible change'); // p alone is not enough
    expect(verdictOf(0, 0.2, 0.001, 0.05)).toBe('no credible change'); // touching 0 is not excluding it
    expect(verdictOf(NaN, NaN, NaN, 0.05)).toBe('no credible change');
  });
});

describe('pairedCompare on 0/1 outcomes (exact McNemar)', () => {
  it('flags a planted 10-point gain on 300 shared instances, and the reverse as harm', () => {
    const { a, b } = plantedRuns(300, 180, 45, 15, 1); // 60% → 70%
    const r = pairedCompare(a, b, { metric: 'accuracy', seed: 1 });
    expect(r).toMatchObject({
      metric: 'accuracy',
      n: 300,
      onlyInA: 0,
      onlyInB: 0,
      test: 'mcnemar_exact',
      verdict: 'credible gain',
    });
    expect(r.meanA).toBeCloseTo(0.6, 12);
    expect(r.meanB).toBeCloseTo(0.7, 12);
    expect(r.diff).toBeCloseTo(0.1, 12);
    expect(r.mcnemar).toMatchObject({ b01: 45, b10: 15 });
    expect(r.pValue).toBeCloseTo(mcnemarExact(45, 15), 12);
    expect(r.pValue).toBeLessThan(0.001);
    expect(r.lo).toBeGreaterThan(0);
    expect(r.hi).toBeGreaterThan(r.diff);
    const rev = pairedCompare(b, a, { metric: 'accuracy', seed: 1 });
    expect(rev.verdict).toBe('credible harm');
    expect(rev.diff).toBeCloseTo(-0.1, 12);
    expect(rev.mcnemar).toMatchObject({ b01: 15, b10: 45 });
    expect(rev.pValue).toBeCloseTo(r.pValue, 15);
    expect(rev.hi).toBeLessThan(0);
  });
  it('flags nothing on identical runs: p = 1, diff 0, CI [0, 0]', () => {
    const { a } = plantedRuns(300, 180, 0, 0, 2);
    const r = pairedCompare(a, new Map(a), { metric: 'accuracy' });
    expect(r).toMatchObject({ verdict: 'no credible change', pValue: 1, pAdjusted: 1, diff: 0, lo: 0, hi: 0 });
    expect(r.mcnemar).toEqual({ b01: 0, b10: 0, pValue: 1 });
  });
  it('a CI that excludes 0 is not enough at small n: 5 gains, 0 losses in 20 → p = 1/16, no credible change', () => {
    const { a, b } = plantedRuns(20, 10, 5, 0, 3);
    const r = pairedCompare(a, b, { metric: 'tool_correct', seed: 0 });
    expect(r.lo).toBeGreaterThan(0); // the premise: the bootstrap alone would call it
    expect(r.pValue).toBeCloseTo(0.0625, 15);
    expect(r.verdict).toBe('no credible change');
  });
  it('matches the exact McNemar p for every discordant split up to 30 (BigInt reference)', () => {
    for (let m = 0; m <= 30; m++) {
      for (let b01 = 0; b01 <= m; b01++) {
        expect(exactBinomialTwoSided(b01, m)).toBeCloseTo(mcnemarExact(b01, m - b01), 13);
      }
    }
  });
  it('keeps the false-positive rate at or below alpha and has power for a real 10-point gain', () => {
    // Two correlated runs per simulated comparison: instance difficulty p_i ~ U(0, 1); A passes with p_i,
    // B with p_i (null) or min(1, p_i + 0.1) (gain). 300 instances, 300 comparisons each, 2,000 resamples.
    const rng = new Rng(deriveSeed(11, 'power'));
    let falsePositives = 0;
    let detected = 0;
    const sims = 300;
    for (let s = 0; s < sims; s++) {
      const a = new Map<string, number>();
      const b0 = new Map<string, number>();
      const b1 = new Map<string, number>();
      for (const id of ids(300)) {
        const p = rng.next();
        a.set(id, rng.chance(p) ? 1 : 0);
        b0.set(id, rng.chance(p) ? 1 : 0);
        b1.set(id, rng.chance(Math.min(1, p + 0.1)) ? 1 : 0);
      }
      if (pairedCompare(a, b0, { metric: 'm', seed: s, resamples: 2000 }).verdict !== 'no credible change')
        falsePositives++;
      if (pairedCompare(a, b1, { metric: 'm', seed: s, resamples: 2000 }).verdict === 'credible gain') detected++;
    }
    expect(falsePositives / sims).toBeLessThanOrEqual(0.07); // nominal 0.05; exact McNemar is conservative
    // Expected power by the normal approximation: gain 0.095, discordance 0.34 → z ≈ 2.87 → Φ(2.87 − 1.96) ≈ 0.82
    // (the exact test is a little conservative); this seeded simulation gives 0.79.
    expect(detected / sims).toBeGreaterThan(0.72);
  });
});

describe('pairedCompare on fractional outcomes (paired sign-flip test)', () => {
  const trialsLike = (rng: Rng) => Math.floor(rng.next() * 4) / 3; // {0, 1/3, 2/3, 1}
  it('flags a planted gain and harm on averaged trials', () => {
    const rng = new Rng(5);
    const a = new Map<string, number>();
    const b = new Map<string, number>();
    for (const id of ids(300)) {
      const x = trialsLike(rng);
      a.set(id, x);
      b.set(id, rng.chance(0.3) ? Math.min(1, x + 1 / 3) : x); // ≈ +0.08 on average
    }
    const r = pairedCompare(a, b, { metric: 'pass_rate' });
    expect(r.test).toBe('sign_flip');
    expect(r.mcnemar).toBeUndefined();
    expect(r.verdict).toBe('credible gain');
    expect(r.pValue).toBeLessThan(0.001);
    expect(pairedCompare(b, a, { metric: 'pass_rate' }).verdict).toBe('credible harm');
    const same = pairedCompare(a, new Map(a), { metric: 'pass_rate' });
    expect(same).toMatchObject({ verdict: 'no credible change', pValue: 1, diff: 0 });
  });
  it('is not fooled by tiny samples: 2 instances that both improve are no evidence', () => {
    const a = new Map([
      ['x', 0.2],
      ['y', 0.4],
    ]);
    const b = new Map([
      ['x', 0.5],
      ['y', 0.9],
    ]);
    const r = pairedCompare(a, b, { metric: 'm' });
    expect(r.lo).toBeGreaterThan(0); // the bootstrap CI alone would call this a gain
    expect(r.pValue).toBeGreaterThan(0.4); // exact sign-flip p = 2/4
    expect(r.verdict).toBe('no credible change');
  });
  it('signFlipPValue agrees with exact enumeration of all 2^m sign patterns', () => {
    const rng = new Rng(8);
    for (let trial = 0; trial < 6; trial++) {
      const m = 6 + trial;
      const d = Array.from({ length: m }, () => Math.round((rng.next() - 0.3) * 6) / 3).filter((x) => x !== 0);
      const obs = Math.abs(d.reduce((s, x) => s + x, 0));
      let extreme = 0;
      for (let mask = 0; mask < 2 ** d.length; mask++) {
        let s = 0;
        d.forEach((x, i) => (s += mask & (1 << i) ? x : -x));
        if (Math.abs(s) >= obs - 1e-9) extreme++;
      }
      const exact = extreme / 2 ** d.length;
      const draws = 20_000;
      const mc = signFlipPValue(d, draws, new Rng(trial));
      expect(Math.abs(mc - exact)).toBeLessThan(4 * Math.sqrt((exact * (1 - exact)) / draws) + 2 / draws);
    }
  });
  it('never reports p = 0 from a finite simulation: the floor is 1/(draws + 1)', () => {
    const d = Array.from({ length: 30 }, (_, i) => 0.1 + i / 100); // exact p = 2/2³⁰
    expect(signFlipPValue(d, 999, new Rng(1))).toBe(1 / 1000);
    expect(signFlipPValue([0, 0, 0], 999, new Rng(1))).toBe(1); // no non-zero difference
  });
  it('on ±1 differences it is the McNemar test (Monte Carlo vs exact)', () => {
    const d = [...new Array(14).fill(1), ...new Array(4).fill(-1)];
    const exact = exactBinomialTwoSided(4, 18);
    const mc = signFlipPValue(d, 40_000, new Rng(1));
    expect(Math.abs(mc - exact)).toBeLessThan(4 * Math.sqrt((exact * (1 - exact)) / 40_000));
  });
  it('keeps the false-positive rate at or below alpha under the null', () => {
    const rng = new Rng(deriveSeed(12, 'null-fractional'));
    let fp = 0;
    const sims = 300;
    for (let s = 0; s < sims; s++) {
      const a = new Map<string, number>();
      const b = new Map<string, number>();
      for (const id of ids(100)) {
        a.set(id, trialsLike(rng));
        b.set(id, trialsLike(rng));
      }
      if (pairedCompare(a, b, { metric: 'm', seed: s, resamples: 1000 }).verdict !== 'no credible change') fp++;
    }
    expect(fp / sims).toBeLessThanOrEqual(0.08);
  });
});

describe('pairedCompare bookkeeping', () => {
  it('compares only shared instances and counts the rest', () => {
    const a = new Map([
      ['1', 1],
      ['2', 0],
      ['3', 1],
      ['only-a', 1],
    ]);
    const b = new Map([
      ['3', 1],
      ['2', 1],
      ['1', 1],
      ['only-b', 0],
      ['only-b2', 0],
    ]);
    const r = pairedCompare(a, b, { metric: 'm' });
    expect(r).toMatchObject({ n: 3, onlyInA: 1, onlyInB: 2, mcnemar: { b01: 1, b10: 0 } });
    expect(r.meanA).toBeCloseTo(2 / 3, 15);
    expect(r.meanB).toBe(1);
  });
  it('does not depend on map order and is reproducible for a seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), (s) => {
        const { a, b } = plantedRuns(40, 20, 6, 2, 9);
        const shuffle = (m: Map<string, number>) => new Map(new Rng(s).shuffle([...m.entries()]));
        const r1 = pairedCompare(a, b, { metric: 'm', seed: 3, resamples: 300 });
        const r2 = pairedCompare(shuffle(a), shuffle(b), { metric: 'm', seed: 3, resamples: 300 });
        return r1.lo === r2.lo && r1.hi === r2.hi && r1.pValue === r2.pValue;
      }),
      { numRuns: 20 },
    );
  });
  it('no shared instances: NaN numbers and no credible change; bad values throw naming the instance', () => {
    const r = pairedCompare(new Map([['x', 1]]), new Map([['y', 1]]), { metric: 'm' });
    expect(r).toMatchObject({ n: 0, onlyInA: 1, onlyInB: 1, verdict: 'no credible change', test: 'none' });
    expect(r.diff).toBeNaN();
    expect(r.pValue).toBeNaN();
    expect(() => pairedCompare(new Map([['x', NaN]]), new Map([['x', 1]]), { metric: 'm' })).toThrow(
      /run A, instance x/,
    );
    expect(() => pairedCompare(new Map([['x', 1]]), new Map([['x', 1]]), { metric: 'm', alpha: 0 })).toThrow(/alpha/);
  });
  it('the CI level follows alpha unless given', () => {
    const { a, b } = plantedRuns(100, 50, 10, 3, 4);
    expect(pairedCompare(a, b, { metric: 'm', alpha: 0.1 }).level).toBeCloseTo(0.9, 15);
    expect(pairedCompare(a, b, { metric: 'm', alpha: 0.1, level: 0.99 }).level).toBe(0.99);
    const wide = pairedCompare(a, b, { metric: 'm', alpha: 0.01 });
    const narrow = pairedCompare(a, b, { metric: 'm', alpha: 0.1 });
    expect(wide.hi - wide.lo).toBeGreaterThan(narrow.hi - narrow.lo);
  });
});

describe('compareMany (Holm across the family)', () => {
  it('adjusts the family before the verdicts: a lone p ≈ 0.04 gain stops being credible among three metrics', () => {
    const strong = plantedRuns(300, 150, 50, 5, 1);
    const modest = plantedRuns(200, 100, 15, 5, 2); // McNemar p = 2·P(X ≤ 5 | 20) ≈ 0.041
    const none = plantedRuns(200, 100, 0, 0, 3);
    const family = [
      { metric: 'parse_ok', ...strong },
      { metric: 'args_correct', ...modest },
      { metric: 'tool_correct', ...none },
    ];
    const alone = pairedCompare(modest.a, modest.b, { metric: 'args_correct', seed: 7 });
    expect(alone.pValue).toBeCloseTo(mcnemarExact(15, 5), 12);
    expect(alone.lo).toBeGreaterThan(0);
    expect(alone.verdict).toBe('credible gain');

    const out = compareMany(family, { seed: 7 });
    expect(out.map((r) => r.verdict)).toEqual(['credible gain', 'no credible change', 'no credible change']);
    expect(out[1]!.pAdjusted).toBeCloseTo(2 * alone.pValue, 12); // rank 2 of m = 3 → ×2
    expect(out[0]!.pAdjusted).toBeCloseTo(3 * out[0]!.pValue, 12);
    expect(out[2]!.pAdjusted).toBe(1);
    // everything else is exactly what pairedCompare alone says
    const { pAdjusted: _p, verdict: _v, ...rest } = out[1]!;
    const { pAdjusted: _p2, verdict: _v2, ...restAlone } = alone;
    expect(rest).toEqual(restAlone);
  });
  it('a family of one is pairedCompare', () => {
    const { a, b } = plantedRuns(300, 180, 45, 15, 1);
    expect(compareMany([{ metric: 'accuracy', a, b }], { seed: 2 })).toEqual([
      pairedCompare(a, b, { metric: 'accuracy', seed: 2 }),
    ]);
  });
});
