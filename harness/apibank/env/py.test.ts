// The Python runtime's pieces that decide results: strptime/strftime (expected values are CPython 3.11's, run once
// and written down), int()/float() coercion, zfill, and the container operations' errors.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contains, D, getItem, I, L, PyExc, S, strftime, strptime, toFloat, toInt, zfill, NONE } from './py.ts';

const TS = '%Y-%m-%d %H:%M:%S';
const run = (s: string, fmt = TS): string => {
  try {
    return strftime(strptime(S(s), fmt), fmt);
  } catch (err) {
    if (err instanceof PyExc) return err.describe();
    throw err;
  }
};

describe('strptime + strftime as CPython 3.11 (values recorded from /usr/bin/python3)', () => {
  it.each([
    ['2023-03-18 14:00:00', '2023-03-18 14:00:00'],
    ['2023-3-8 4:05:06', '2023-03-08 04:05:06'],
    ['2023-03-18T14:00:00', "ValueError: time data '2023-03-18T14:00:00' does not match format '%Y-%m-%d %H:%M:%S'"],
    ['2023-03-18 14:00', "ValueError: time data '2023-03-18 14:00' does not match format '%Y-%m-%d %H:%M:%S'"],
    ['2023-02-29 10:00:00', 'ValueError: day is out of range for month'],
    ['2024-02-29 10:00:00', '2024-02-29 10:00:00'],
    ['0000-01-01 00:00:00', 'ValueError: year 0 is out of range'],
    ['2023-03-18  14:00:00', '2023-03-18 14:00:00'],
    [' 2023-03-18 14:00:00', "ValueError: time data ' 2023-03-18 14:00:00' does not match format '%Y-%m-%d %H:%M:%S'"],
    ['2023-03-18 14:00:60', 'ValueError: second must be in 0..59'],
    ['2023-03-18 14:00:61', 'ValueError: second must be in 0..59'],
    ['2023-03-18 24:00:00', "ValueError: time data '2023-03-18 24:00:00' does not match format '%Y-%m-%d %H:%M:%S'"],
    ['2023-13-01 00:00:00', "ValueError: time data '2023-13-01 00:00:00' does not match format '%Y-%m-%d %H:%M:%S'"],
    ['2023-03-18 14:00:00 ', 'ValueError: unconverted data remains:  '],
    ['0999-01-01 00:00:00', '999-01-01 00:00:00'],
    ['2023-03-1 4:00:00', '2023-03-01 04:00:00'],
  ])('%j', (input, want) => expect(run(input)).toBe(want));

  it.each([
    ['02-29', 'ValueError: day is out of range for month'],
    ['2-3', '02-03'],
    ['13-01', "ValueError: time data '13-01' does not match format '%m-%d'"],
    ['03-18 ', 'ValueError: unconverted data remains:  '],
  ])('%%m-%%d %j', (input, want) => expect(run(input, '%m-%d')).toBe(want));

  it('names the type of a non-str argument as Argument Clinic does', () => {
    expect(() => strptime(NONE, TS)).toThrow('strptime() argument 1 must be str, not None');
    expect(() => strptime(I(5), TS)).toThrow('strptime() argument 1 must be str, not int');
  });

  it('round-trips every valid zero-padded date-time and never throws anything but a Python exception', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        (d) => {
          const s = d.toISOString().slice(0, 19).replace('T', ' ');
          expect(run(s)).toBe(s);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789-: T/x'), maxLength: 22 }), (s) => {
        const out = run(s);
        expect(out.startsWith('ValueError: ') || /^\d{1,4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(out)).toBe(true);
      }),
    );
  });
});

describe('coercion of int and float parameters', () => {
  const err = (f: () => unknown): string => {
    try {
      f();
      return 'ok';
    } catch (e) {
      return (e as PyExc).describe();
    }
  };
  it('int() as Python applies it', () => {
    expect(toInt(S(' 2 '))).toEqual(I(2));
    expect(toInt(S('1_000'))).toEqual(I(1000));
    expect(toInt(S('010'))).toEqual(I(10)); // int() of a str allows leading zeros (a literal does not)
    expect(toInt(S(' 0_7 '))).toEqual(I(7));
    expect(err(() => toInt(S('0'.repeat(4301))))).toMatch(/^ValueError: invalid literal for int\(\) with base 10/);
    expect(toInt(S('\u0f24'))).toEqual(I(4)); // Tibetan digit four
    expect(toInt(S('\u{1d7d9}2'))).toEqual(I(12)); // mathematical double-struck one (a run of five digit blocks)
    expect(toInt({ t: 'float', v: 2.7 })).toEqual(I(2));
    expect(toInt({ t: 'bool', v: true })).toEqual(I(1));
    expect(err(() => toInt(S('2.5')))).toBe("ValueError: invalid literal for int() with base 10: '2.5'");
    expect(err(() => toInt(NONE))).toBe(
      "TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'",
    );
    expect(err(() => toInt(S('1__0')))).toBe("ValueError: invalid literal for int() with base 10: '1__0'");
  });
  it('float() as Python applies it', () => {
    expect(toFloat(S('2.5'))).toEqual({ t: 'float', v: 2.5 });
    expect(toFloat(S(' 1e3 '))).toEqual({ t: 'float', v: 1000 });
    expect(toFloat(S('-inf'))).toEqual({ t: 'float', v: -Infinity });
    expect(toFloat(I(3))).toEqual({ t: 'float', v: 3 });
    expect(toFloat(S('\u0661.5'))).toEqual({ t: 'float', v: 1.5 }); // Arabic-Indic one
    expect(err(() => toFloat(S('warm')))).toBe("ValueError: could not convert string to float: 'warm'");
    expect(err(() => toFloat(L([])))).toBe("TypeError: float() argument must be a string or a real number, not 'list'");
  });
  it('zfill keeps a sign in front', () => {
    expect(zfill('23', 4)).toBe('0023');
    expect(zfill('-5', 4)).toBe('-005');
    expect(zfill('12345', 4)).toBe('12345');
  });
});

describe('containers', () => {
  it('indexes and tests membership with Python errors and equality', () => {
    const d = D({ a: I(1) });
    expect(() => getItem(d, 'b')).toThrow("'b'");
    expect(() => getItem(I(3), 'a')).toThrow("'int' object is not subscriptable");
    expect(contains(L([I(1)]), { t: 'float', v: 1 })).toBe(true);
    expect(() => contains(d, L([]))).toThrow("unhashable type: 'list'");
    expect(() => contains(S('abc'), I(1))).toThrow("'in <string>' requires string as left operand, not int");
  });
});
