// json.loads as Python's json module does it (API-Bank's databases and BFCL's files are read with it): same values (ints stay ints, a '.' or exponent
// makes a float), object keys in file order even when they look like integers, and damaged text refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestedValues } from '../arbitraries.ts';
import { jsonToPy, pyEquals, type PyValue } from './index.ts';
import { clonePlain, PyFloat, PyJsonError, pyJsonLoads, pyJsonToPlain, pyToPlain, readPyJson } from './pyjson.ts';

const keysOf = (v: PyValue): string[] => (v.t === 'dict' ? v.entries.map(([k]) => (k as { v: string }).v) : []);

describe('pyJsonLoads', () => {
  it('gives the values JSON.parse gives, as Python values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (x) => {
        const text = JSON.stringify(x);
        expect(pyEquals(pyJsonLoads(text), jsonToPy(JSON.parse(text)))).toBe(true);
      }),
    );
  });

  it('keeps object keys in file order, integer-like keys included, and the last value of a repeated key', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(fc.string(), fc.nat().map(String)), fc.integer()), { maxLength: 8 }),
        (pairs) => {
          const text = `{${pairs.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(', ')}}`;
          const order: string[] = [];
          for (const [k] of pairs) if (!order.includes(k)) order.push(k);
          const got = pyJsonLoads(text);
          expect(keysOf(got)).toEqual(order);
          for (const k of order) {
            const last = pairs.filter(([kk]) => kk === k).at(-1)![1];
            const entry = (got as Extract<PyValue, { t: 'dict' }>).entries.find(
              ([kk]) => (kk as { v: string }).v === k,
            )!;
            expect(entry[1]).toEqual({ t: 'int', v: BigInt(last) });
          }
        },
      ),
    );
  });

  it('reads 1.0 and 1e2 as floats and 10 as an int', () => {
    expect(pyJsonLoads('[1.0, 1e2, 10, -0]')).toEqual({
      t: 'list',
      items: [
        { t: 'float', v: 1 },
        { t: 'float', v: 100 },
        { t: 'int', v: 10n },
        { t: 'int', v: 0n },
      ],
    });
  });

  it('refuses what JSON.parse refuses (truncations, stray text)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.constantFrom('', 'x', ',', ']'), (x, cut, junk) => {
        const full = JSON.stringify(x);
        const text = full.slice(0, cut % (full.length + 1)) + junk;
        let jsOk = true;
        try {
          JSON.parse(text);
        } catch {
          jsOk = false;
        }
        if (jsOk) expect(() => pyJsonLoads(text)).not.toThrow();
        else expect(() => pyJsonLoads(text)).toThrow(PyJsonError);
      }),
    );
  });
});

/** Plain data with what toEqual leaves out spelled out: key order, PyFloat, -0. */
function shape(v: unknown): unknown {
  if (v instanceof PyFloat) return { float: shape(v.value) };
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : v;
  if (Array.isArray(v)) return v.map(shape);
  if (v && typeof v === 'object')
    return Object.keys(v).map((k) => [k, Object.getPrototypeOf(v) === Object.prototype, shape(Reflect.get(v, k))]);
  return v;
}

/** What pyToPlain(pyJsonLoads(text)) gives, or the error it throws. */
function slow(text: string): unknown {
  try {
    return shape(pyToPlain(pyJsonLoads(text)));
  } catch (err) {
    return { error: (err as Error).message };
  }
}
function fast(text: string): unknown {
  try {
    return shape(pyJsonToPlain(text));
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('clonePlain', () => {
  /** Every object and array of `copy` is new, with the own keys (in order) and values of the original's. */
  const sameButNew = (copy: unknown, original: unknown): void => {
    if (original === null || typeof original !== 'object' || original instanceof PyFloat) {
      expect(copy).toBe(original);
      return;
    }
    expect(copy).not.toBe(original);
    expect(Array.isArray(copy)).toBe(Array.isArray(original));
    expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(original));
    expect(Reflect.ownKeys(copy as object)).toEqual(Reflect.ownKeys(original as object));
    for (const k of Reflect.ownKeys(original as object))
      sameButNew((copy as Record<PropertyKey, unknown>)[k], (original as Record<PropertyKey, unknown>)[k]);
  };

  it('copies every object and array of JSON data, keys in order, PyFloat values kept as they are', () => {
    const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '0', '10'));
    const tree = nestedValues(
      fc.oneof(
        fc.integer(),
        fc.string(),
        fc.boolean(),
        fc.constant(null),
        fc.double().map((v) => new PyFloat(v)),
      ),
      key,
      { maxLength: 4, sparse: false },
    );
    fc.assert(fc.property(tree, (x) => sameButNew(clonePlain(x), x)));
    const proto = JSON.parse('{"__proto__": {"polluted": 1}, "a": 2}');
    const copy = clonePlain(proto);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: number }).polluted).toBeUndefined();
  });
});

describe('pyJsonToPlain', () => {
  const number = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.constantFrom('5.0', '-0', '0', '-0.0', '1e2', '1E-7', '9007199254740993', '123456789012345', '1234567890123456'),
    fc.constantFrom('NaN', 'Infinity', '-Infinity', '01', '1.', '.5', '-'),
  );
  const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '1', '0', 'a'));
  const { text } = fc.letrec<{ text: string }>((tie) => ({
    text: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      number.map(String),
      fc.string().map((s) => JSON.stringify(s)),
      fc.constantFrom('true', 'null', '"a\\"', '"\\u00e9 5.0"', '"x'),
      fc.array(tie('text'), { maxLength: 4 }).map((xs) => `[${xs.join(', ')}]`),
      fc
        .array(fc.tuple(key, tie('text')), { maxLength: 4 })
        .map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(', ')}}`),
    ),
  }));

  it('gives what pyToPlain(pyJsonLoads(text)) gives: floats, big ints, -0, key order, repeated keys, errors', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(fast(t)).toEqual(slow(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the nesting limit Python has', () => {
    for (const depth of [899, 900, 901, 950])
      for (const inner of ['1', '"x"', '[]']) {
        const t = `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
        expect(fast(t), `${depth} ${inner}`).toEqual(slow(t));
      }
    expect(slow(`${'['.repeat(950)}${']'.repeat(950)}`)).toHaveProperty('error');
  });
});

describe('pyJsonLoads through JSON.parse', () => {
  const number = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.constantFrom('5.0', '-0', '0', '1e2', '9007199254740993', '123456789012345', 'NaN', '01', '-'),
  );
  // Integer-like keys, written plainly or escaped, are what JS objects reorder.
  const key = fc.oneof(
    fc.string(),
    fc.constantFrom(
      '__proto__',
      'constructor',
      '1',
      '0',
      '10',
      'a',
      '1a',
      '-1',
      '01',
      '\\u0031',
      '\\u00312',
      'x\\u0031',
    ),
  );
  const { text } = fc.letrec<{ text: string }>((tie) => ({
    text: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      number.map(String),
      fc.string().map((s) => JSON.stringify(s)),
      fc.constantFrom('true', 'null', '"12"', '"\\u0032"', '"a\\"', '"x', ' [ ] ', '{}'),
      fc.array(tie('text'), { maxLength: 4 }).map((xs) => `[${xs.join(', ')}]`),
      fc
        .array(fc.tuple(key, tie('text')), { maxLength: 4 })
        .map(
          (kv) =>
            `{${kv.map(([k, v]) => `"${k.startsWith('\\') || k.includes('\\u') ? k : JSON.stringify(k).slice(1, -1)}": ${v}`).join(', ')}}`,
        ),
    ),
  }));
  const outcome = (read: (t: string) => PyValue, t: string): unknown => {
    try {
      return read(t);
    } catch (err) {
      return { error: (err as Error).message };
    }
  };

  it('gives what the reader gives: values, key order, repeated keys, errors', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(outcome(pyJsonLoads, t)).toEqual(outcome(readPyJson, t));
      }),
      { numRuns: 3000 },
    );
  });
});
