import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pushTo } from './push-to.ts';

describe('pushTo', () => {
  it('groups values by key in arrival order, the same lists a filter per key gives', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer())), (pairs) => {
        const m = new Map<string, number[]>();
        for (const [k, v] of pairs) pushTo(m, k, v);
        for (const k of ['a', 'b', 'c']) {
          const expected = pairs.filter(([key]) => key === k).map(([, v]) => v);
          expect(m.get(k)).toEqual(expected.length ? expected : undefined);
        }
      }),
    );
  });
});
