// Concrete facts about CPython 3.11's ast.literal_eval, ==, repr() and str methods (each checked with python3).
import { describe, expect, it } from 'vitest';
import {
  jsonToPy,
  literalEval,
  pyEquals,
  pyLower,
  pyRepr,
  pyStrip,
  pyToJson,
  removeSuffix,
  tryLiteralEval,
  PyLiteralError,
  PyLiteralUnsupported,
  type PyValue,
} from './index.ts';

const repr = (src: string) => pyRepr(literalEval(src));
const eq = (a: string, b: string) => pyEquals(literalEval(a), literalEval(b));
const rejects = (src: string) => expect(() => literalEval(src), JSON.stringify(src)).toThrow(PyLiteralError);

describe('literalEval: numbers', () => {
  it.each([
    ['0x_1F', '31'],
    ['0X_ff_FF', '65535'],
    ['0o17', '15'],
    ['0b1_0', '2'],
    ['1_000', '1000'],
    ['000', '0'],
    ['0_0', '0'],
    ['1.', '1.0'],
    ['.5', '0.5'],
    ['1e5', '100000.0'],
    ['1_0.5e-3', '0.0105'],
    ['1e999', 'inf'],
    ['-1e999', '-inf'],
    ['1e16', '1e+16'],
    ['1e15', '1000000000000000.0'],
    ['1e-5', '1e-05'],
    ['0.0001', '0.0001'],
    ['07.5', '7.5'],
    ['09e1', '90.0'],
    ['1j', '1j'],
    ['1.5J', '1.5j'],
    ['07j', '7j'],
    ['0j', '0j'],
    ['-0j', '(-0-0j)'],
    ['-1+2j', '(-1+2j)'],
    ['1-2j', '(1-2j)'],
    ['-0.0-0j', '(-0+0j)'],
    ['-0.0+0j', '0j'],
    ['-(1)+(2j)', '(-1+2j)'],
    ['+1', '1'],
    ['-0.0', '-0.0'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['-1e999j', '(-0-infj)'],
  ])('%s == %s', (src, expected) => {
    expect(repr(src)).toBe(expected);
  });

  it('keeps big ints exact', () => {
    expect(literalEval('9007199254740993')).toEqual({ t: 'int', v: 9007199254740993n });
    expect(literalEval('0x' + 'f'.repeat(40))).toEqual({ t: 'int', v: 2n ** 160n - 1n });
  });

  it.each([
    '007',
    '09',
    '0_7',
    '1__0',
    '1_',
    '0x',
    '0x_',
    '0b2',
    '0o8',
    '1e',
    '1e+',
    '1e_5',
    '1_e5',
    '1._5',
    '1abc',
    '0x1.5',
    '1..5',
    '1 2',
  ])('rejects %s', rejects);

  it('applies the 4300-digit limit to decimal int literals only', () => {
    expect(literalEval('1'.repeat(4300)).t).toBe('int');
    rejects('1'.repeat(4301));
    rejects('1_'.repeat(4300) + '1');
    expect(literalEval('0x' + 'f'.repeat(5000)).t).toBe('int');
    expect(literalEval('1'.repeat(5000) + '.0').t).toBe('float');
    expect(literalEval('0'.repeat(5000))).toEqual({ t: 'int', v: 0n });
  });

  it('allows unary +/- only on numbers, and a ± only as real ± imaginary', () => {
    for (const src of [
      '--1',
      '-True',
      '-(1,)',
      "-'a'",
      '+-1',
      '~1',
      '1+2',
      '1j+1',
      '1+2j+3j',
      '1+-2j',
      '-(1+2j)',
      'not 1',
      '1*2j',
    ])
      rejects(src);
    rejects('1' + '0'.repeat(400) + '+2j'); // OverflowError: int too large to convert to float
    rejects('-'.repeat(100_000) + '1'); // RecursionError in CPython; no stack overflow here
    expect(literalEval('[' + '1+2j, '.repeat(100_000) + ']').t).toBe('list');
  });
});

describe('literalEval: strings and bytes', () => {
  it.each([
    ["'\\x41'", "'A'"],
    ['\'a\' "b"', "'ab'"],
    ["'''a''' \"b\" '''c'''", "'abc'"],
    ["u'a' 'b'", "'ab'"],
    ["r'\\d'", "'\\\\d'"],
    ["'\\d'", "'\\\\d'"],
    ["'\\u00e9'", "'é'"],
    ["'\\U0001F600'", "'😀'"],
    ["'\\N{LATIN SMALL LETTER A}'", "'a'"],
    ["'\\N{lf}'", "'\\n'"],
    ["'\\N{HANGUL SYLLABLE GAG}'", "'각'"],
    ["'\\N{CJK UNIFIED IDEOGRAPH-04E00}'", "'一'"],
    ["'\\0'", "'\\x00'"],
    ["'\\777'", "'ǿ'"],
    ["b'\\777'", "b'\\xff'"],
    ["b'\\u0041'", "b'\\\\u0041'"],
    ["'\\é'", "'\\\\é'"],
    ["'a\\\nb'", "'ab'"],
    ["'''a\r\nb'''", "'a\\nb'"],
    ["Rb'\\x'", "b'\\\\x'"],
    ["'\\ud800'", "'\\ud800'"],
    ['"it\'s"', '"it\'s"'],
    ["'\\x7f\\xa0\\u2028'", "'\\x7f\\xa0\\u2028'"],
  ])('%s -> %s', (src, expected) => {
    expect(repr(src)).toBe(expected);
  });

  it.each([
    "f'a'",
    "'a' f'b'",
    "b'a' 'b'",
    "b'é'",
    "ur'a'",
    "'a",
    "'a\nb'",
    "'''a",
    "'\\x4'",
    "'\\U00110000'",
    "'\\N'",
    "'\\N{}'",
    "'\\N{BOGUS}'",
    "'\\N{cjk unified ideograph-4e00}'",
    "'\\N{CJK UNIFIED IDEOGRAPH-4e00}'",
    "'\\N{hangul syllable ga}'",
    "'\\N{LATIN CAPITAL LETTER A WITH MACRON AND GRAVE}'",
    "'a'\n'b'",
    "'\ud800'",
  ])('rejects %s', rejects);

  it('refuses, rather than fuses, surrogate code points that a JS string would pair', () => {
    expect(() => literalEval("'\\ud83d\\ude00'")).toThrow(PyLiteralUnsupported);
    expect(() => literalEval("'\\ud83d' '\\ude00'")).toThrow(PyLiteralUnsupported);
    expect(() => literalEval("('\\ud83d\\ude00', 1 2)")).toThrow(PyLiteralError); // a real error still wins
    expect(tryLiteralEval("'\\ud83d\\ude00'")).toBeUndefined();
  });
});

describe('literalEval: containers, names and layout', () => {
  it.each([
    ['set()', 'set()'],
    ['(set)()', 'set()'],
    ['ｓｅｔ()', 'set()'],
    ['ſet()', 'set()'],
    ['set ( \n )', 'set()'],
    ['{1, True, 1.0}', '{1}'],
    ["{1: 'a', 1.0: 'b', True: 'c'}", "{1: 'c'}"],
    ["{0: 'x', -0.0: 'y', False: 'z', 0j: 'w'}", "{0: 'w'}"],
    ["{1: 'a', 1+0j: 'b'}", "{1: 'b'}"],
    ['1,', '(1,)'],
    ['1, 2,', '(1, 2)'],
    ['()', '()'],
    ['(1)', '1'],
    ['((1),)', '(1,)'],
    ['[1,\n 2, # c\n 3]', '[1, 2, 3]'],
    ['{1:2,}', '{1: 2}'],
    ['...', 'Ellipsis'],
    ['None', 'None'],
    ['  \t 1', '1'],
    ['\n\n1\n\n', '1'],
    ['# c\n1 # d', '1'],
    ['1 \\\n, 2', '(1, 2)'],
    ['\\\n1', '1'],
    ['\f1', '1'],
    ['1\r\n', '1'],
    ['1\n   \n', '1'],
    ["{(1, 2): [3], 'k': {4}}", "{(1, 2): [3], 'k': {4}}"],
  ])('%s -> %s', (src, expected) => {
    expect(repr(src)).toBe(expected);
  });

  it.each([
    '',
    '   ',
    '# c',
    ',',
    '(,)',
    '[1,,]',
    '{1:2:3}',
    '{1: 2, 3}',
    '{1:2, **{}}',
    '[*a]',
    'set(*())',
    'set(())',
    'set()()',
    'Set()',
    'set.x',
    'x',
    'true',
    'Ellipsis',
    '𝐓𝐫𝐮𝐞',
    '[1][0]',
    '1 if 1 else 2',
    '(x := 1)',
    '1;',
    '. . .',
    '....',
    '{[1]: 2}',
    '{(1, [2])}',
    '{set()}',
    '{{}}',
    '\n 1',
    '1\n ',
    '1\n2',
    '\f 1',
    '\\\n 1',
    '1\\',
    '1\\\n',
    '\ufeff1',
    '1\x0b',
    '1 # \x00',
    '1\n\\\n',
  ])('rejects %j', rejects);

  it('allows 200 nested brackets and not 201', () => {
    expect(literalEval('['.repeat(200) + ']'.repeat(200)).t).toBe('list');
    rejects('['.repeat(201) + ']'.repeat(201));
    expect(repr('('.repeat(199) + 'set()' + ')'.repeat(199))).toBe('set()');
  });
});

describe('pyEquals is Python ==', () => {
  it.each([
    ['1', '1.0', true],
    ['1', 'True', true],
    ['1', '1+0j', true],
    ['0', '-0.0', true],
    ['[1]', '(1,)', false],
    ['[1]', '[1.0]', true],
    ["{1: 'a'}", "{1.0: 'a'}", true],
    ["{1: 'a', 2: 'b'}", "{2: 'b', 1: 'a'}", true],
    ['{1, 2}', '{2, 1}', true],
    ['{1, 2}', '{1, 3}', false],
    ["'a'", "b'a'", false],
    ['9007199254740993', '9007199254740992.0', false],
    ['9007199254740992', '9007199254740992.0', true],
    ['1e999', '1e999', true],
    ['1e999', '-1e999', false],
    ['(1, [2])', '(1.0, [2+0j])', true],
    ['None', '0', false],
    ['set()', '{}', false],
    ['0.1', '1/10', null],
    ['1j', '1', false],
    ["'é'", "'e\\u0301'", false],
    ['...', '...', true],
    ['()', '[]', false],
  ] as const)('%s == %s is %s', (a, b, expected) => {
    if (expected === null) {
      rejects(b);
      return;
    }
    expect(eq(a, b)).toBe(expected);
    expect(eq(b, a)).toBe(expected);
  });
});

describe('Python str helpers', () => {
  it('strip() uses Python whitespace', () => {
    expect(pyStrip('\x1c\x85 a \u2028\u3000')).toBe('a');
    expect(pyStrip('\ufeffa\u200b')).toBe('\ufeffa\u200b'); // JS trim() would drop the BOM
  });

  it('lower() is full Unicode lowercasing with final sigma', () => {
    expect(pyLower('İ')).toBe('i\u0307');
    expect(pyLower('ΣΑΣ ΣΑΣ.')).toBe('σας σας.');
    expect(pyLower('ΣΣ')).toBe('σς');
    expect(pyLower('Σ')).toBe('σ');
    expect(pyLower('ẞ')).toBe('ß');
    expect(pyLower('\u1c89')).toBe('\u1c89'); // added in Unicode 16: JS lowercases it, Python 3.11 does not
  });

  it('removesuffix removes one occurrence', () => {
    expect(removeSuffix('5.0.0', '.0')).toBe('5.0');
    expect(removeSuffix('5', '.0')).toBe('5');
  });
});

describe('JSON conversions', () => {
  it('pyToJson maps containers and keeps unsafe ints as strings', () => {
    const v: PyValue = literalEval("{'a': (1, [2.5, None]), 1: True, 'big': 9007199254740993}");
    expect(pyToJson(v)).toEqual({ a: [1, [2.5, null]], 1: true, big: '9007199254740993' });
    expect(pyToJson(literalEval("{1, 'x'}"))).toEqual([1, 'x']);
    expect(pyToJson(literalEval('1e999'))).toBe('inf');
  });

  it('jsonToPy is json.loads of the JSON text', () => {
    expect(jsonToPy({ a: [1, 1.5, null, 'x', true] })).toEqual({
      t: 'dict',
      entries: [
        [
          { t: 'str', v: 'a' },
          {
            t: 'list',
            items: [
              { t: 'int', v: 1n },
              { t: 'float', v: 1.5 },
              { t: 'none' },
              { t: 'str', v: 'x' },
              { t: 'bool', v: true },
            ],
          },
        ],
      ],
    });
    expect(jsonToPy(1e21)).toEqual({ t: 'float', v: 1e21 });
    expect(jsonToPy(-41099163202616490)).toEqual({ t: 'int', v: -41099163202616490n });
    expect(() => jsonToPy(undefined)).toThrow(PyLiteralError);
  });
});
