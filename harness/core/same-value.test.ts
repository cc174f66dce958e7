import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nestedValues } from './arbitraries.ts';
import { sameValue } from './same-value.ts';

describe('sameValue', () => {
  const key = fc.constantFrom('a', 'b', '__proto__', '1');
  const value = nestedValues(fc.constantFrom(0, -0, 1, NaN, '', 'x', null, undefined, true, false), key, {
    maxLength: 3,
  });
  // Deep strict equality, and the same keys in the same order at every level.
  const keyOrders = (v: unknown): unknown =>
    v && typeof v === 'object' ? [Object.keys(v), Object.values(v).map(keyOrders)] : null;

  it('is deep strict equality with keys in the same order', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(sameValue(a, b)).toBe(isDeepStrictEqual(a, b) && isDeepStrictEqual(keyOrders(a), keyOrders(b)));
        expect(sameValue(a, structuredClone(a))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  // The same data but for key order (objects' keys reversed) or holes (filled with undefined): near misses.
  const variant = (v: unknown, reverse: boolean, fill: boolean): unknown => {
    if (Array.isArray(v)) {
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) if (fill || i in v) out[i] = variant(v[i], reverse, fill);
      return out;
    }
    if (v && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      const keys = Object.keys(v);
      for (const k of reverse ? keys.reverse() : keys)
        Object.defineProperty(o, k, {
          value: variant((v as Record<string, unknown>)[k], reverse, fill),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return o;
    }
    return v;
  };

  it('tells apart the same data with keys in another order or holes filled', () => {
    fc.assert(
      fc.property(value, fc.boolean(), fc.boolean(), (a, reverse, fill) => {
        const b = variant(a, reverse, fill);
        expect(sameValue(a, b)).toBe(isDeepStrictEqual(a, b) && isDeepStrictEqual(keyOrders(a), keyOrders(b)));
      }),
      { numRuns: 2000 },
    );
  });
});
