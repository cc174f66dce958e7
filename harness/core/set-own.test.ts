import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setOwn } from './set-own.ts';

describe('setOwn', () => {
  it('builds the object defineProperty builds, `__proto__` and repeated keys included', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString', '1', '0', 'a'));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.integer())), (pairs) => {
        const got: Record<string, unknown> = {};
        const want: Record<string, unknown> = {};
        for (const [k, v] of pairs) {
          setOwn(got, k, v);
          Object.defineProperty(want, k, { value: v, enumerable: true, writable: true, configurable: true });
        }
        expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
        expect(Object.entries(got)).toEqual(Object.entries(want));
      }),
    );
  });
});
