import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestedValues } from './arbitraries.ts';
import { stableJsonStringify, stableStringify } from './hash.ts';

describe('stableJsonStringify', () => {
  // What JSON text does to values: toJSON (given the key), boxed primitives, -0, NaN, undefined, functions, holes.
  class Float {
    constructor(readonly value: number) {}
    toJSON(): number {
      return this.value;
    }
  }
  class Keyed {
    toJSON(key: string): unknown {
      return key === '' ? { top: true } : { key, nested: [new Float(1.5)] };
    }
  }
  const key = fc.constantFrom('a', 'b', 'B', '__proto__', '1', '10', 'toJSON', 'é');
  const leaf = fc.oneof(
    fc.oneof(fc.integer(), fc.double(), fc.string(), fc.boolean(), fc.constant(null)),
    fc.constantFrom(-0, NaN, Infinity, undefined, () => 1, new Date(0), new Keyed()),
    fc.constantFrom(new Number(2), new String('s'), new Boolean(false)),
    fc.double().map((x) => new Float(x)),
  );
  const value = nestedValues(leaf, key, { maxLength: 4 });

  it('is stableStringify of the value JSON text holds', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 5 }), (kv) => {
        const v: Record<string, unknown> = {};
        for (const [k, x] of kv)
          Object.defineProperty(v, k, { value: x, enumerable: true, writable: true, configurable: true });
        expect(stableJsonStringify(v)).toBe(stableStringify(JSON.parse(JSON.stringify(v))));
      }),
      { numRuns: 2000 },
    );
  });
});
