import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dealToPart } from './deal.ts';

describe('dealToPart', () => {
  it('splits every selection into disjoint parts that together hold each instance once, in dataset order', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(9), { maxLength: 40 }), fc.integer({ min: 1, max: 6 }), (weights, parts) => {
        const items = weights.map((w, i) => ({ i, w }));
        const dealt = Array.from({ length: parts }, (_, k) => dealToPart(items, k + 1, parts, (x) => x.w));
        expect(
          dealt
            .flat()
            .map((x) => x.i)
            .sort((a, b) => a - b),
        ).toEqual(items.map((x) => x.i));
        for (const part of dealt) expect(part.map((x) => x.i)).toEqual([...part.map((x) => x.i)].sort((a, b) => a - b));
        // Round-robin over the heaviest-first order: part sizes differ by at most one.
        const sizes = dealt.map((p) => p.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('with one part, the first part file holds everything and any other holds nothing', () => {
    const items = [1, 2, 3];
    expect(dealToPart(items, 1, 1)).toEqual([1, 2, 3]);
    expect(dealToPart(items, 2, 1)).toEqual([]);
  });
});
