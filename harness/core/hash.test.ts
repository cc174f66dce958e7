import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestedValues } from './arbitraries.ts';
import { DepthError, MAX_NESTING } from './depth.ts';
import { sha256, stableJsonStringify, stableStringify } from './hash.ts';

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
  // Array-index keys ('0' … '4294967294') are listed first in numeric order by an object holding them; the others
  // (a leading zero, a sign, a fraction, 2^32 - 1) in the order they were added.
  const key = fc.constantFrom(
    'a',
    'b',
    'B',
    '__proto__',
    '1',
    '10',
    '9',
    '0',
    '01',
    '-1',
    '1.5',
    '4294967294',
    '4294967295',
    'toJSON',
    'é',
    '',
  );
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

  it('is stableStringify of the JSON text of any value, at the top too', () => {
    fc.assert(
      fc.property(value, (v) => {
        const text = JSON.stringify(v);
        if (text === undefined) expect(stableJsonStringify(v)).toBeUndefined();
        else expect(stableJsonStringify(v)).toBe(stableStringify(JSON.parse(text)));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes what JSON.stringify writes for bigints and functions with toJSON', () => {
    const fn = Object.assign(() => 1, { toJSON: (k: string) => `fn at ${k}` });
    expect(stableJsonStringify({ b: fn, a: [fn] })).toBe('{"a":["fn at 0"],"b":"fn at b"}');
    expect(() => stableJsonStringify({ a: 1n })).toThrow(TypeError);
  });

  it('refuses a value nested deeper than the bound, as every walker does', () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_NESTING + 1; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(() => stableJsonStringify(deep)).toThrow(DepthError);
    let ok: unknown = 1;
    for (let i = 0; i < MAX_NESTING; i++) ok = [ok];
    expect(stableJsonStringify(ok)).toBe(`${'['.repeat(MAX_NESTING)}1${']'.repeat(MAX_NESTING)}`);
  });
});

describe('sha256', () => {
  it('is SHA-256 in hex of the UTF-8 text or the bytes (FIPS 180 vectors; Python hashlib for the non-ASCII text)', () => {
    expect(sha256('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256(new Uint8Array([0x61, 0x62, 0x63]))).toBe(sha256('abc'));
    expect(sha256('é€😀')).toBe('df9226927fd572c1ee66eec85de1bb139497614899f36e4e90474cb71f6ef9d0');
  });
});
