import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from './rng.ts';

describe('Rng.sumOfDraws', () => {
  it('sums the values at the indices int() draws, and leaves the stream where int() would', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 40 }),
        fc.nat(200),
        (seed, values, draws) => {
          const byInt = new Rng(seed);
          let expected = 0;
          for (let i = 0; i < draws; i++) expected += values[byInt.int(values.length)]!;
          const fast = new Rng(seed);
          expect(fast.sumOfDraws(values, draws)).toBe(expected);
          expect(fast.next()).toBe(byInt.next());
        },
      ),
    );
  });
});
