import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dealToPart, partsInUse, TESTS_PER_UNSHARDED_PART } from './deal.ts';

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

describe('partsInUse', () => {
  it('an unsharded run keeps a small selection in the first part file and deals a large one over the files', () => {
    expect(partsInUse({ tests: 182, parts: 4, sharded: false })).toBe(1);
    expect(partsInUse({ tests: TESTS_PER_UNSHARDED_PART, parts: 4, sharded: false })).toBe(1);
    expect(partsInUse({ tests: TESTS_PER_UNSHARDED_PART + 1, parts: 4, sharded: false })).toBe(2);
    expect(partsInUse({ tests: 6006, parts: 4, sharded: false })).toBe(4);
    expect(partsInUse({ tests: 6006, parts: 1, sharded: false })).toBe(1);
    expect(partsInUse({ tests: 0, parts: 4, sharded: false })).toBe(1);
    // Sharded, Vitest spreads the part files over the shards: all of them hold instances.
    expect(partsInUse({ tests: 12, parts: 4, sharded: true })).toBe(4);
  });

  it('no part file of an unsharded run holds more tests than the larger of the threshold and an even share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 6 }),
        (rows, trials, parts) => {
          const items = Array.from({ length: rows }, (_, i) => i);
          const used = partsInUse({ tests: rows * trials, parts, sharded: false });
          const dealt = Array.from({ length: parts }, (_, k) => dealToPart(items, k + 1, used));
          // Every row runs exactly once, in the parts in use only.
          expect(dealt.flat().sort((a, b) => a - b)).toEqual(items);
          for (const d of dealt.slice(used)) expect(d).toEqual([]);
          // A part's tests: a whole row's trials more than its even share at most.
          const bound = Math.max(TESTS_PER_UNSHARDED_PART, Math.ceil((rows * trials) / parts)) + trials;
          for (const d of dealt) expect(d.length * trials).toBeLessThanOrEqual(bound);
        },
      ),
    );
  });

  it('a ToolHop run of 182 rows × 33 trials holds a quarter of its 6,006 tests in each part file, not all in one', () => {
    const rows = Array.from({ length: 182 }, (_, i) => i);
    const used = partsInUse({ tests: 182 * 33, parts: 4, sharded: false });
    const sizes = [1, 2, 3, 4].map((k) => dealToPart(rows, k, used).length * 33);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(6006);
    for (const n of sizes) expect(n).toBeLessThanOrEqual(Math.ceil(182 / 4) * 33);
  });
});
