import { describe, expect, it } from 'vitest';
import { binomialRow, logRatio } from './exact-reference.ts';
import { binomialLogPmf, normalQuantile } from './special.ts';

describe('normalQuantile', () => {
  it('matches published quantiles of the standard normal to 1e-12', () => {
    const known: Array<[number, number]> = [
      [0.5, 0],
      [0.975, 1.959963984540054],
      [0.995, 2.5758293035489004],
      [0.9, 1.2815515655446004],
      [0.8413447460685429, 1], // Φ(1)
      [0.02275013194817921, -2], // Φ(−2)
      [1e-10, -6.361340902404056],
    ];
    for (const [p, z] of known) expect(Math.abs(normalQuantile(p) - z)).toBeLessThan(1e-12 * Math.max(1, Math.abs(z)));
  });
  it('is antisymmetric and handles the ends', () => {
    for (const p of [1e-9, 0.001, 0.1, 0.3, 0.45]) {
      expect(normalQuantile(p)).toBeCloseTo(-normalQuantile(1 - p), 6);
    }
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(normalQuantile(1.2)).toBeNaN();
    expect(normalQuantile(1e-300)).toBeCloseTo(-37.0470962993612, 10); // far tail stays finite and accurate
  });
});

describe('binomialLogPmf', () => {
  it('matches exact BigInt binomials to 1e-12 relative (p = ½, n up to 3000)', () => {
    for (const n of [1, 7, 40, 301, 3000]) {
      const row = binomialRow(n);
      const den = 2n ** BigInt(n);
      for (const k of [0, 1, Math.floor(n / 3), Math.floor(n / 2), n - 1, n]) {
        if (k < 0 || k > n) continue;
        const exact = logRatio(row[k] as bigint, den);
        expect(Math.abs(binomialLogPmf(k, n, 0.5) - exact)).toBeLessThan(1e-12 * Math.max(1, Math.abs(exact)));
      }
    }
  });
  it('matches exact BigInt values for p = 3/4 and p = 1/1000', () => {
    for (const [n, a, b] of [
      [925, 3, 4],
      [2000, 1, 1000],
    ] as const) {
      const row = binomialRow(n);
      for (const k of [0, 1, 2, 10, Math.round((n * a) / b), n - 3, n]) {
        const num = (row[k] as bigint) * BigInt(a) ** BigInt(k) * BigInt(b - a) ** BigInt(n - k);
        const exact = logRatio(num, BigInt(b) ** BigInt(n));
        expect(Math.abs(binomialLogPmf(k, n, a / b) - exact)).toBeLessThan(1e-11 * Math.max(1, Math.abs(exact)));
      }
    }
  });
  it('puts all mass on the edge when p is 0 or 1', () => {
    expect(binomialLogPmf(0, 10, 0)).toBe(0);
    expect(binomialLogPmf(1, 10, 0)).toBe(-Infinity);
    expect(binomialLogPmf(10, 10, 1)).toBe(0);
    expect(binomialLogPmf(9, 10, 1)).toBe(-Infinity);
  });
});
