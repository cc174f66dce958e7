// json.loads as Python's json module does it (API-Bank's databases and BFCL's files are read with it): same values (ints stay ints, a '.' or exponent
// makes a float), object keys in file order even when they look like integers, and damaged text refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonToPy, pyEquals, type PyValue } from './index.ts';
import { PyJsonError, pyJsonLoads } from './pyjson.ts';

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
