import { describe, expect, it } from 'vitest';
import { pairedRatioDifference, type RatioUnit } from './paired-ratio.ts';

const units = (xs: Array<[string, number, number]>) =>
  new Map<string, RatioUnit>(xs.map(([id, num, den]) => [id, { num, den }]));

describe('pairedRatioDifference', () => {
  it('pools each side over the shared units and counts the others', () => {
    const a = units([
      ['t1', 1, 2],
      ['t2', 0, 1],
      ['t3', 1, 1],
      ['only-a', 5, 5],
    ]);
    const b = units([
      ['t1', 2, 2],
      ['t2', 1, 1],
      ['t3', 0, 1],
      ['only-b', 0, 3],
    ]);
    const r = pairedRatioDifference(a, b, { seed: 1, resamples: 2000 });
    expect(r.n).toBe(3);
    expect(r.onlyInA).toBe(1);
    expect(r.onlyInB).toBe(1);
    expect(r.valueA).toBeCloseTo(2 / 4, 12);
    expect(r.valueB).toBeCloseTo(3 / 4, 12);
    expect(r.diff).toBeCloseTo(0.25, 12);
  });

  it('its interval matches the exact bootstrap distribution, enumerated over every resample of 3 units', () => {
    const a = units([
      ['t1', 1, 2],
      ['t2', 0, 1],
      ['t3', 2, 2],
    ]);
    const b = units([
      ['t1', 2, 2],
      ['t2', 1, 1],
      ['t3', 0, 2],
    ]);
    const ids = ['t1', 't2', 't3'];
    // Every ordered draw of 3 indices has probability 1/27: the exact distribution of the paired difference.
    const exact: number[] = [];
    for (const i of ids)
      for (const j of ids)
        for (const k of ids) {
          const pick = [i, j, k];
          const ra = pick.reduce((s, id) => s + a.get(id)!.num, 0) / pick.reduce((s, id) => s + a.get(id)!.den, 0);
          const rb = pick.reduce((s, id) => s + b.get(id)!.num, 0) / pick.reduce((s, id) => s + b.get(id)!.den, 0);
          exact.push(rb - ra);
        }
    exact.sort((x, y) => x - y);
    const r = pairedRatioDifference(a, b, { seed: 7, resamples: 20_000, level: 0.8 });
    // Lower 10% / upper 90% points of the exact distribution (27 equally likely values; 2.7 values per 10%).
    const lowAt = exact[Math.floor(0.1 * 27)]!;
    const highAt = exact[Math.ceil(0.9 * 27) - 1]!;
    expect(r.lo).toBeGreaterThanOrEqual(exact[0]! - 1e-12);
    expect(Math.abs(r.lo - lowAt)).toBeLessThan(0.2);
    expect(Math.abs(r.hi - highAt)).toBeLessThan(0.2);
    expect(r.dropped).toBe(0);
  });

  it('identical sides give a zero difference and a zero-width interval; a side with no denominator gives no interval', () => {
    const a = units([
      ['t1', 1, 2],
      ['t2', 0, 1],
      ['t3', 1, 1],
    ]);
    const same = pairedRatioDifference(a, a, { seed: 3, resamples: 500 });
    expect([same.diff, same.lo, same.hi]).toEqual([0, 0, 0]);
    const none = pairedRatioDifference(
      a,
      units([
        ['t1', 0, 0],
        ['t2', 0, 0],
        ['t3', 0, 0],
      ]),
      { seed: 3, resamples: 500 },
    );
    expect(none.valueB).toBeNaN();
    expect(none.lo).toBeNaN();
  });
});
