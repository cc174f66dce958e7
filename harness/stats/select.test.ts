import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quantile } from './describe.ts';
import { quantilesBySelection } from './select.ts';

/** The oracle: the whole sample sorted numerically, then type-7 quantiles. */
function bySort(xs: number[], qs: number[]): number[] {
  const s = Float64Array.from(xs).sort();
  return qs.map((q) => quantile(s, q));
}

const probabilities = fc
  .array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 4 })
  .map((qs) => qs.sort((a, b) => a - b));

describe('quantilesBySelection', () => {
  it('gives exactly the quantiles of the sorted sample (few distinct values, as bootstrap statistics of 0/1 outcomes have)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.integer({ min: 0, max: 6 }).map((k) => k / 6),
          { minLength: 1, maxLength: 300 },
        ),
        probabilities,
        (xs, qs) => {
          const got = quantilesBySelection(Float64Array.from(xs), qs);
          bySort(xs, qs).forEach((want, k) =>
            expect(Object.is(got[k], want), `q=${qs[k]}: ${got[k]} vs ${want}`).toBe(true),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on any doubles, NaN and -0 included, and leaves the same values in the array', () => {
    fc.assert(
      fc.property(fc.array(fc.double(), { minLength: 1, maxLength: 200 }), probabilities, (xs, qs) => {
        const a = Float64Array.from(xs);
        const got = quantilesBySelection(a, qs);
        bySort(xs, qs).forEach((want, k) =>
          expect(Object.is(got[k], want), `q=${qs[k]}: ${got[k]} vs ${want}`).toBe(true),
        );
        expect(Array.from(Float64Array.from(a).sort())).toEqual(Array.from(Float64Array.from(xs).sort()));
      }),
      { numRuns: 300 },
    );
  });

  it('the 95% interval of 10,000 sorted, reversed and constant statistics', () => {
    const up = Array.from({ length: 10_000 }, (_, i) => i / 7);
    for (const xs of [up, [...up].reverse(), new Array<number>(10_000).fill(0.5)]) {
      expect(quantilesBySelection(Float64Array.from(xs), [0.025, 0.975])).toEqual(bySort(xs, [0.025, 0.975]));
    }
  });
});
