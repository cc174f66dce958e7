import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Rng } from '../core/rng.ts';
import { BinomialSampler, VaryingBinomial, binomialDraw, exactBinomialTwoSided } from './binomial.ts';
import { binomialRow, exactTwoSidedRational, logRatio, ratio } from './exact-reference.ts';
import { binomialLogPmf, normalQuantile } from './special.ts';

/** The oracle of the sampler's draws: Binomial(n, p)'s CDF summed term by term from the pmf, and its total. */
function summedCdf(n: number, p: number): { cdf: number[]; total: number } {
  const cdf: number[] = [];
  let total = 0;
  for (let i = 0; i <= n; i++) cdf.push((total += Math.exp(binomialLogPmf(i, n, p))));
  return { cdf, total };
}

/** The smallest k whose CDF exceeds u, by a linear scan (the last cell when none does). */
function invert(cdf: readonly number[], u: number): number {
  let k = 0;
  while (k < cdf.length - 1 && cdf[k]! <= u) k++;
  return k;
}

describe('exactBinomialTwoSided', () => {
  it('matches textbook values', () => {
    // 3 of 10 at ½: 2·(1 + 10 + 45 + 120)/1024
    expect(exactBinomialTwoSided(3, 10)).toBeCloseTo(0.34375, 14);
    // McNemar with 2 vs 8 discordant pairs: 2·(1 + 10 + 45)/1024
    expect(exactBinomialTwoSided(2, 10)).toBeCloseTo(0.109375, 14);
    expect(exactBinomialTwoSided(5, 10)).toBe(1);
    expect(exactBinomialTwoSided(0, 0)).toBe(1);
    expect(exactBinomialTwoSided(0, 5)).toBeCloseTo(2 / 32, 15);
    // R: binom.test(682, 925, p = 3/4) → p-value = 0.3825 (the example in R's documentation)
    expect(exactBinomialTwoSided(682, 925, 0.75)).toBeCloseTo(0.3825, 4);
  });
  it('equals exact enumeration with BigInt binomials for every k, n ≤ 40, p = ½', () => {
    for (let n = 1; n <= 40; n++) {
      for (let k = 0; k <= n; k++) {
        const { num, den } = exactTwoSidedRational(k, n, 1, 2);
        const exact = Math.min(1, ratio(num, den));
        expect(Math.abs(exactBinomialTwoSided(k, n) - exact)).toBeLessThan(1e-13 * exact + 1e-300);
      }
    }
  });
  it('equals exact enumeration for p ≠ ½ (p = 1/3, n ≤ 30; p = 3/4, n = 925)', () => {
    for (let n = 1; n <= 30; n++) {
      for (let k = 0; k <= n; k++) {
        const { num, den } = exactTwoSidedRational(k, n, 1, 3);
        const exact = Math.min(1, ratio(num, den));
        expect(Math.abs(exactBinomialTwoSided(k, n, 1 / 3) - exact)).toBeLessThan(1e-12 * exact);
      }
    }
    const { num, den } = exactTwoSidedRational(682, 925, 3, 4);
    expect(exactBinomialTwoSided(682, 925, 0.75)).toBeCloseTo(ratio(num, den), 12);
  });
  it('stays exact in log space for n in the thousands, including p-values far below double precision of 1', () => {
    const n = 3000;
    const row = binomialRow(n);
    const den = 2n ** BigInt(n);
    for (const k of [1400, 1450, 1300, 1000, 10]) {
      let tail = 0n;
      for (let i = 0; i <= k; i++) tail += row[i] as bigint;
      const exactLog = Math.min(0, Math.LN2 + logRatio(tail, den)); // symmetric: 2·P(X ≤ k)
      const got = exactBinomialTwoSided(k, n);
      if (exactLog > -700) expect(Math.abs(Math.log(got) - exactLog)).toBeLessThan(1e-11 * Math.max(1, -exactLog));
      else expect(got).toBe(0); // below the double range (k = 10 gives about 1e-870)
    }
  });
  it('rejects impossible counts', () => {
    expect(() => exactBinomialTwoSided(5, 4)).toThrow(RangeError);
    expect(() => exactBinomialTwoSided(1.5, 4)).toThrow(RangeError);
    expect(() => exactBinomialTwoSided(1, 4, 1.2)).toThrow(RangeError);
  });
});

/**
 * Chi-square goodness of fit of `draws` seeded draws against the exact Binomial(n, a/b) pmf (BigInt), pooling
 * cells with expected count < 5; returns the statistic and its 99.9% critical value (Wilson–Hilferty).
 */
function chiSquareBinomial(draw: (rng: Rng) => number, n: number, a: number, b: number, draws: number) {
  const rng = new Rng(12345);
  const counts = new Array<number>(n + 1).fill(0);
  for (let i = 0; i < draws; i++) {
    const k = draw(rng);
    if (!(Number.isInteger(k) && k >= 0 && k <= n)) throw new Error(`impossible draw ${k}`);
    counts[k]!++;
  }
  const row = binomialRow(n);
  const den = BigInt(b) ** BigInt(n);
  const expected = row.map((c, k) => {
    const num = c * BigInt(a) ** BigInt(k) * BigInt(b - a) ** BigInt(n - k);
    return num === 0n ? 0 : draws * ratio(num, den);
  });
  let chi = 0;
  let cells = 0;
  let accO = 0;
  let accE = 0;
  for (let k = 0; k <= n; k++) {
    accO += counts[k] as number;
    accE += expected[k] as number;
    if (accE >= 5 || k === n) {
      chi += accE > 0 ? (accO - accE) ** 2 / accE : accO > 0 ? Infinity : 0;
      cells++;
      accO = 0;
      accE = 0;
    }
  }
  const df = Math.max(1, cells - 1);
  const z = normalQuantile(0.999);
  return { chi, crit: df * (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3 };
}

describe('BinomialSampler', () => {
  it('draws Binomial(n, p): chi-square goodness of fit on 200,000 seeded draws', () => {
    for (const [n, a, b] of [
      [20, 3, 10],
      [150, 9, 10],
    ] as const) {
      const s = new BinomialSampler(n, a / b);
      const { chi, crit } = chiSquareBinomial((rng) => s.draw(rng), n, a, b, 200_000);
      expect(chi).toBeLessThan(crit);
    }
  });
  it('draws exactly the inverse of its CDF at each uniform: the smallest k whose CDF exceeds it', () => {
    // The oracle: the same seeded uniforms, inverted by a linear scan of a CDF summed here from the pmf.
    for (const [n, p] of [
      [1, 0.5],
      [7, 1 / 3],
      [100, 0.3],
      [400, 0.7],
      [1000, 0.02],
      [2000, 0.999],
    ] as const) {
      const { cdf, total: acc } = summedCdf(n, p);
      const s = new BinomialSampler(n, p);
      const a = new Rng(n);
      const b = new Rng(n);
      for (let d = 0; d < 20_000; d++) {
        const k = invert(cdf, b.next() * acc);
        const got = s.draw(a);
        if (got !== k) expect(got, `n=${n}, p=${p}, draw ${d}`).toBe(k);
      }
    }
  });
  it('draws what inverting the whole CDF draws, for any n and p (its far upper tail is not summed)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3000 }),
        fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 1, 1e-9, 0.5, 1 - 1e-9)),
        fc.nat(),
        (n, p, seed) => {
          const { cdf, total: acc } = summedCdf(n, p);
          const s = new BinomialSampler(n, p);
          const a = new Rng(seed);
          const b = new Rng(seed);
          for (let d = 0; d < 500; d++) {
            const k = invert(cdf, b.next() * acc);
            const got = s.draw(a);
            if (got !== k) expect(got, `n=${n}, p=${p}, draw ${d}`).toBe(k);
          }
          // Uniforms at every cell's boundary and a rounding step either side (and 0, and the largest below 1): a
          // CDF or a total that differs anywhere in the last place draws differently at one of them.
          const xs = [0, 1 - 2 ** -32];
          for (const c of cdf) xs.push(c / acc, (c / acc) * (1 - 2 ** -52), (c / acc) * (1 + 2 ** -52));
          for (const x of xs) {
            if (!(x < 1)) continue;
            const k = invert(cdf, x * acc);
            const got = s.draw({ next: () => x } as Rng);
            if (got !== k) expect(got, `n=${n}, p=${p}, uniform ${x}`).toBe(k);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
  it('never draws an impossible value at p = 0 or p = 1', () => {
    const rng = new Rng(1);
    const zero = new BinomialSampler(50, 0);
    const one = new BinomialSampler(50, 1);
    for (let i = 0; i < 1000; i++) {
      expect(zero.draw(rng)).toBe(0);
      expect(one.draw(rng)).toBe(50);
    }
  });
});

describe('binomialDraw (parameters change per draw)', () => {
  it('draws Binomial(n, p): chi-square goodness of fit, from tiny to large n and p near 0 and 1', () => {
    const cases: Array<[number, number, number]> = [
      [1, 1, 2],
      [20, 3, 10],
      [1000, 1, 50],
      [500, 97, 100],
      [3000, 1, 2],
      [7, 1, 3],
    ];
    for (const [n, a, b] of cases) {
      const { chi, crit } = chiSquareBinomial((rng) => binomialDraw(n, a / b, rng), n, a, b, 100_000);
      expect(chi, `n=${n}, p=${a}/${b}`).toBeLessThan(crit);
    }
  });
  it('one VaryingBinomial serves changing n correctly (its per-n cache does not leak between n)', () => {
    const vb = new VaryingBinomial(0.3);
    const flip = { i: 0 };
    // alternate n = 10 and n = 200 on one instance; test each stream of draws against its own pmf
    const draw10 = (rng: Rng) => {
      vb.draw(200, rng);
      flip.i++;
      return vb.draw(10, rng);
    };
    const draw200 = (rng: Rng) => {
      vb.draw(10, rng);
      return vb.draw(200, rng);
    };
    for (const [f, n] of [
      [draw10, 10],
      [draw200, 200],
    ] as const) {
      const { chi, crit } = chiSquareBinomial(f, n, 3, 10, 50_000);
      expect(chi, `n=${n}`).toBeLessThan(crit);
    }
    expect(flip.i).toBe(50_000);
  });
  it('one VaryingBinomial over many n draws what a fresh inversion from the mode draws (its cache changes no draw)', () => {
    // The oracle: the inversion from the mode outwards, computed afresh for each draw (mode, mode − 1, mode + 1, …),
    // its pmf values by the same recurrence: a cache may save work, never move an outcome.
    const invert = (n: number, p: number, u0: number): number => {
      const r = p / (1 - p);
      const mode = Math.min(n, Math.floor((n + 1) * p));
      const pm = Math.exp(binomialLogPmf(mode, n, p));
      let u = u0 - pm;
      if (u < 0) return mode;
      let [lo, hi, plo, phi] = [mode, mode, pm, pm];
      for (;;) {
        if (lo > 0) {
          plo *= lo / ((n - lo + 1) * r);
          if ((u -= plo) < 0) return --lo;
          lo--;
        }
        if (hi < n) {
          phi *= ((n - hi) * r) / (hi + 1);
          if ((u -= phi) < 0) return ++hi;
          hi++;
        }
        if (lo === 0 && hi === n) return mode;
      }
    };
    const pick = new Rng(5);
    const moved: string[] = [];
    for (const p of [0.03, 0.3, 0.5, 0.91]) {
      const vb = new VaryingBinomial(p);
      const [a, b] = [new Rng(17), new Rng(17)];
      for (let i = 0; i < 1500; i++) {
        const n = 1 + pick.int(i % 2 ? 40 : 400);
        const [got, want] = [vb.draw(n, a), invert(n, p, b.next())];
        if (got !== want) moved.push(`n=${n}, p=${p}, draw ${i}: ${got}, not ${want}`);
      }
    }
    expect(moved.slice(0, 5)).toEqual([]);
  });
  it('handles the edges p = 0, p = 1, n = 0', () => {
    const rng = new Rng(2);
    expect(binomialDraw(10, 0, rng)).toBe(0);
    expect(binomialDraw(10, 1, rng)).toBe(10);
    expect(binomialDraw(0, 0.5, rng)).toBe(0);
  });
});
