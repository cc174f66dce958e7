import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Rng } from '../core/rng.ts';
import { holm } from './holm.ts';

describe('holm', () => {
  it('matches a hand-worked example (and R p.adjust(method = "holm"))', () => {
    // sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, max(0.04·1, 0.06) = 0.06
    const adj = holm([0.01, 0.04, 0.03, 0.005]);
    const expected = [0.03, 0.06, 0.06, 0.02];
    adj.forEach((p, i) => expect(p).toBeCloseTo(expected[i]!, 15));
  });
  it('caps at 1, keeps ties equal, leaves NaN out of the family', () => {
    expect(holm([0.5, 0.6])).toEqual([1, 1]);
    expect(holm([0.02, 0.02, 0.5])).toEqual([0.06, 0.06, 0.5]);
    const withNaN = holm([0.01, NaN, 0.04]);
    expect(withNaN[0]).toBeCloseTo(0.02, 15); // m = 2, not 3
    expect(withNaN[1]).toBeNaN();
    expect(withNaN[2]).toBeCloseTo(0.04, 15);
    expect(holm([])).toEqual([]);
    expect(() => holm([0.1, 1.2])).toThrow(/index 1/);
  });
  it('properties: raw ≤ adjusted ≤ 1, order-preserving, ≤ Bonferroni, smallest = m·min', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 30 }), (ps) => {
        const adj = holm(ps);
        const m = ps.length;
        for (let i = 0; i < m; i++) {
          const a = adj[i]!;
          const p = ps[i]!;
          if (!(a >= p && a <= 1 && a <= Math.min(1, m * p) + 1e-15)) return false;
          for (let j = 0; j < m; j++) if (p <= ps[j]! && a > adj[j]!) return false;
        }
        const iMin = ps.indexOf(Math.min(...ps));
        return Math.abs(adj[iMin]! - Math.min(1, m * ps[iMin]!)) < 1e-15;
      }),
    );
  });
  it('controls the family-wise error rate: under the global null, P(any adj ≤ 0.05) ≤ 0.05', () => {
    // 10 independent uniform p-values per family, 4,000 families. Under the global null Holm rejects something
    // exactly when min p ≤ 0.005, so the rate is 1 − 0.995¹⁰ ≈ 0.0489.
    let rejections = 0;
    const families = 4000;
    const rng = new Rng(2718);
    const unif = () => rng.next();
    for (let f = 0; f < families; f++) {
      const adj = holm(Array.from({ length: 10 }, unif));
      if (adj.some((p) => p <= 0.05)) rejections++;
    }
    expect(rejections / families).toBeLessThanOrEqual(0.06);
    expect(rejections / families).toBeGreaterThan(0.03); // and is not trivially conservative
  });
});
