import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { BinomialSampler, exactBinomialTwoSided } from './binomial.ts';
import { binomialRow, exactTwoSidedRational, logRatio, ratio } from './exact-reference.ts';
import { normalQuantile } from './special.ts';

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

describe('BinomialSampler', () => {
  it('draws Binomial(n, p): chi-square goodness of fit on 200,000 seeded draws', () => {
    for (const [n, p] of [[20, 0.3], [150, 0.9]] as const) {
      const s = new BinomialSampler(n, p);
      const rng = new Rng(12345);
      const draws = 200_000;
      const counts = new Array<number>(n + 1).fill(0);
      for (let i = 0; i < draws; i++) counts[s.draw(rng)]!++;
      // expected counts from the exact pmf; pool cells with expected < 5 into their neighbours
      const row = binomialRow(n);
      const den = BigInt(10) ** BigInt(n);
      const pInt = BigInt(Math.round(p * 10));
      const expected = row.map((c, k) => draws * ratio(c * pInt ** BigInt(k) * (10n - pInt) ** BigInt(n - k), den) || 0);
      let chi = 0;
      let cells = 0;
      let accO = 0;
      let accE = 0;
      for (let k = 0; k <= n; k++) {
        accO += counts[k] as number;
        accE += expected[k] as number;
        if (accE >= 5) {
          chi += (accO - accE) ** 2 / accE;
          cells++;
          accO = 0;
          accE = 0;
        }
      }
      const df = cells - 1;
      const z = normalQuantile(0.999); // Wilson–Hilferty 99.9% point of chi-square(df)
      const crit = df * (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3;
      expect(chi).toBeLessThan(crit);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(draws);
    }
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
