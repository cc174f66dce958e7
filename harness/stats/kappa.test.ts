import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { quantile } from './describe.ts';
import { cohenKappa, confusionTable, kappaEstimate, kappaOfCounts } from './kappa.ts';

/** Pairs that fill a table of counts (rater A on rows, rater B on columns). */
function pairsOf(labels: string[], counts: number[][]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  counts.forEach((row, i) =>
    row.forEach((c, j) => out.push(...Array.from({ length: c }, (): [string, string] => [labels[i]!, labels[j]!]))),
  );
  return out;
}

describe('Cohen’s kappa against worked examples', () => {
  it('the textbook example: 50 proposals, yes/yes 20, yes/no 5, no/yes 10, no/no 15 → κ = 0.4', () => {
    // p_o = 35/50 = 0.7; A says yes 25/50, B 30/50 → p_e = 0.5·0.6 + 0.5·0.4 = 0.5; κ = 0.2 / 0.5 = 0.4.
    expect(
      kappaOfCounts([
        [20, 5],
        [10, 15],
      ]),
    ).toBeCloseTo(0.4, 12);
    expect(
      cohenKappa(
        pairsOf(
          ['yes', 'no'],
          [
            [20, 5],
            [10, 15],
          ],
        ),
      ),
    ).toBeCloseTo(0.4, 12);
  });

  it('same observed agreement, different marginals: 0.60 agreement gives κ = 0.1304 and 0.2593', () => {
    // [[45,15],[25,15]]: p_e = (60·70 + 40·30)/100² = 0.54 → κ = 0.06/0.46. [[25,35],[5,35]]: p_e = 0.46 → 0.14/0.54.
    expect(
      kappaOfCounts([
        [45, 15],
        [25, 15],
      ]),
    ).toBeCloseTo(0.06 / 0.46, 12);
    expect(
      kappaOfCounts([
        [25, 35],
        [5, 35],
      ]),
    ).toBeCloseTo(0.14 / 0.54, 12);
  });

  it('a 3 × 3 table worked by hand, and one with a label only one rater used', () => {
    // n = 10, diagonal 7; rows 3,4,3; columns 3,4,3 → p_e = (9 + 16 + 9)/100 = 0.34; κ = 0.36/0.66.
    expect(
      kappaOfCounts([
        [2, 1, 0],
        [0, 3, 1],
        [1, 0, 2],
      ]),
    ).toBeCloseTo(0.36 / 0.66, 12);
    // n = 4, diagonal 3 (a,a)(b,b)(b,b); rows a 2, b 2, c 0; columns a 1, b 2, c 1 → p_e = (2 + 4 + 0)/16 = 0.375;
    // κ = (0.75 − 0.375)/0.625 = 0.6.
    expect(
      cohenKappa(
        [
          ['a', 'a'],
          ['a', 'c'],
          ['b', 'b'],
          ['b', 'b'],
        ].map(([x, y]) => [x!, y!] as [string, string]),
      ),
    ).toBeCloseTo(0.6, 12);
  });

  it('perfect disagreement on two balanced labels is −1; chance-level agreement is 0', () => {
    expect(
      kappaOfCounts([
        [0, 5],
        [5, 0],
      ]),
    ).toBeCloseTo(-1, 12);
    expect(
      kappaOfCounts([
        [1, 1],
        [1, 1],
      ]),
    ).toBeCloseTo(0, 12);
  });

  it('undefined when nothing was rated or both raters used one label throughout', () => {
    expect(
      kappaOfCounts([
        [0, 0],
        [0, 0],
      ]),
    ).toBeNaN();
    expect(
      kappaOfCounts([
        [7, 0],
        [0, 0],
      ]),
    ).toBeNaN();
    expect(() => kappaOfCounts([[1, 2]])).toThrow(/not square/);
  });

  it('the confusion table keeps a given label order, lists unused labels and refuses unknown ones', () => {
    expect(
      confusionTable(
        [
          ['b', 'a'],
          ['b', 'b'],
        ],
        ['a', 'b', 'c'],
      ),
    ).toEqual({
      labels: ['a', 'b', 'c'],
      counts: [
        [0, 0, 0],
        [1, 1, 0],
        [0, 0, 0],
      ],
    });
    expect(() => confusionTable([['a', 'z']], ['a', 'b'])).toThrow(/'z' is not one of a, b/);
  });
});

describe('Cohen’s kappa: properties', () => {
  const LABELS = ['success', 'recovered', 'failed_safely', 'failed'];
  const label = fc.constantFrom(...LABELS);
  const pairs = fc.array(fc.tuple(label, label), { minLength: 1, maxLength: 60 });

  it('κ = 1 when the raters give identical labels (at least two labels used)', () => {
    fc.assert(
      fc.property(
        fc.array(label, { minLength: 2, maxLength: 60 }).filter((xs) => new Set(xs).size >= 2),
        (xs) => {
          expect(cohenKappa(xs.map((x) => [x, x] as [string, string]))).toBeCloseTo(1, 12);
        },
      ),
    );
  });

  it('invariant under renaming the labels (any bijection) and under swapping the raters; never above 1', () => {
    fc.assert(
      fc.property(pairs, fc.shuffledSubarray(LABELS, { minLength: 4, maxLength: 4 }), (ps, perm) => {
        const rename = new Map(LABELS.map((l, i) => [l, `renamed-${perm[i]}`]));
        const k = cohenKappa(ps);
        const renamed = cohenKappa(ps.map(([a, b]) => [rename.get(a)!, rename.get(b)!] as [string, string]));
        const swapped = cohenKappa(ps.map(([a, b]) => [b, a] as [string, string]));
        if (Number.isNaN(k)) {
          expect(renamed).toBeNaN();
          return;
        }
        expect(renamed).toBeCloseTo(k, 12);
        expect(swapped).toBeCloseTo(k, 12);
        expect(k).toBeLessThanOrEqual(1 + 1e-12);
      }),
    );
  });
});

describe('kappaEstimate: the bootstrap interval', () => {
  const table = confusionTable(
    pairsOf(
      ['yes', 'no'],
      [
        [20, 5],
        [10, 15],
      ],
    ),
    ['yes', 'no'],
  );

  it('is seeded and brackets the point estimate', () => {
    const a = kappaEstimate(table, { denominator: 'runs', resamples: 2000, seed: 3 });
    expect(a).toMatchObject({ value: expect.closeTo(0.4, 12), n: 50, method: 'bootstrap', seed: 3, resamples: 2000 });
    expect(a.lo).toBeLessThan(0.4);
    expect(a.hi).toBeGreaterThan(0.4);
    expect(kappaEstimate(table, { denominator: 'runs', resamples: 2000, seed: 3 })).toEqual(a);
  });

  it('agrees with a plain resampling of the pairs (an independent bootstrap written here)', () => {
    // Draw 50 pairs with replacement, tabulate and compute κ by the textbook formula: the percentile interval of
    // this independent bootstrap and of the binomial-chain one must agree up to Monte-Carlo error.
    const ps = pairsOf(
      ['yes', 'no'],
      [
        [20, 5],
        [10, 15],
      ],
    );
    const rng = new Rng(99);
    const ks: number[] = [];
    for (let r = 0; r < 4000; r++) {
      let agree = 0;
      let aYes = 0;
      let bYes = 0;
      for (let i = 0; i < ps.length; i++) {
        const [a, b] = ps[Math.floor(rng.next() * ps.length)]!;
        if (a === b) agree++;
        if (a === 'yes') aYes++;
        if (b === 'yes') bYes++;
      }
      const n = ps.length;
      const pe = (aYes / n) * (bYes / n) + (1 - aYes / n) * (1 - bYes / n);
      if (pe < 1) ks.push((agree / n - pe) / (1 - pe));
    }
    ks.sort((x, y) => x - y);
    const e = kappaEstimate(table, { denominator: 'runs', resamples: 4000, seed: 1 });
    expect(Math.abs(e.lo - quantile(ks, 0.025))).toBeLessThan(0.04);
    expect(Math.abs(e.hi - quantile(ks, 0.975))).toBeLessThan(0.04);
  });

  it('has no interval when κ is undefined or there is one unit', () => {
    expect(
      kappaEstimate(
        confusionTable([
          ['a', 'a'],
          ['a', 'a'],
        ]),
        { denominator: 'runs' },
      ),
    ).toMatchObject({ method: 'none', n: 2 });
    expect(kappaEstimate(confusionTable([['a', 'b']]), { denominator: 'runs' })).toMatchObject({
      method: 'none',
      n: 1,
    });
    expect(kappaEstimate(confusionTable([]), { denominator: 'runs' }).value).toBeNaN();
  });
});
