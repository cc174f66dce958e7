// Test support for the differential tests: decoding the oracle's tagged values, strict identity of values, and
// fast-check generators of Python literal source text (valid, near-valid and broken).
import fc from 'fast-check';
import { codePoints } from './pystr.ts';
import type { PyValue } from './value.ts';

// ---------------------------------------------------------------------------------------------------------------
// The oracle's tagged encoding (see fixtures/pyliteral/oracle.py).

export type Tagged = [string, ...unknown[]];
export type OracleEval = { ok: true; v: Tagged; repr: string | null } | { ok: false; err: string };

/** A decoded oracle value: str keeps its code points, since a JS string would fuse surrogate code points. */
export type RefValue =
  | { t: 'int'; v: bigint }
  | { t: 'float'; v: number }
  | { t: 'complex'; re: number; im: number }
  | { t: 'bool'; v: boolean }
  | { t: 'none' }
  | { t: 'ellipsis' }
  | { t: 'str'; cps: number[] }
  | { t: 'bytes'; hex: string }
  | { t: 'list' | 'tuple' | 'set'; items: RefValue[] }
  | { t: 'dict'; entries: Array<[RefValue, RefValue]> };

const pyFloat = (s: string): number =>
  s === 'inf' ? Infinity : s === '-inf' ? -Infinity : s === 'nan' ? NaN : Number(s);
const pyHexInt = (s: string): bigint => (s.startsWith('-') ? -BigInt(s.slice(1)) : BigInt(s));

export function decodeTagged(x: Tagged): RefValue {
  const [tag, a, b] = x as [string, unknown, unknown];
  switch (tag) {
    case 'int':
      return { t: 'int', v: pyHexInt(a as string) };
    case 'float':
      return { t: 'float', v: pyFloat(a as string) };
    case 'complex':
      return { t: 'complex', re: pyFloat(a as string), im: pyFloat(b as string) };
    case 'bool':
      return { t: 'bool', v: a as boolean };
    case 'none':
      return { t: 'none' };
    case 'ellipsis':
      return { t: 'ellipsis' };
    case 'str':
      return { t: 'str', cps: a as number[] };
    case 'bytes':
      return { t: 'bytes', hex: a as string };
    case 'list':
    case 'tuple':
    case 'set':
      return { t: tag, items: (a as Tagged[]).map(decodeTagged) };
    case 'dict':
      return { t: 'dict', entries: (a as Array<[Tagged, Tagged]>).map(([k, v]) => [decodeTagged(k), decodeTagged(v)]) };
    default:
      throw new Error(`unknown tag ${tag}`);
  }
}

/** Whether a Python str value has a high surrogate code point followed by a low one (not representable in JS). */
export function hasFusableSurrogates(v: RefValue): boolean {
  switch (v.t) {
    case 'str':
      return v.cps.some(
        (c, k) => c >= 0xd800 && c <= 0xdbff && (v.cps[k + 1] ?? 0) >= 0xdc00 && (v.cps[k + 1] ?? 0) <= 0xdfff,
      );
    case 'list':
    case 'tuple':
    case 'set':
      return v.items.some(hasFusableSurrogates);
    case 'dict':
      return v.entries.some(([k, x]) => hasFusableSurrogates(k) || hasFusableSurrogates(x));
    default:
      return false;
  }
}

/**
 * Strict identity: same types all the way down, floats bit-for-bit (-0.0 is not 0.0), dict entries in order with
 * the same key objects, set elements in any order. Returns a description of the first difference, or undefined.
 */
export function differs(ours: PyValue, ref: RefValue, path = '$'): string | undefined {
  const here = (msg: string) => `${path}: ${msg}`;
  if (ours.t !== ref.t) return here(`type ${ours.t} vs python ${ref.t}`);
  switch (ref.t) {
    case 'int':
    case 'bool':
      return (ours as { v: unknown }).v === ref.v
        ? undefined
        : here(`${String((ours as { v: unknown }).v)} vs ${String(ref.v)}`);
    case 'float':
      return Object.is((ours as { v: number }).v, ref.v) ? undefined : here(`${(ours as { v: number }).v} vs ${ref.v}`);
    case 'complex': {
      const o = ours as { re: number; im: number };
      return Object.is(o.re, ref.re) && Object.is(o.im, ref.im)
        ? undefined
        : here(`(${o.re},${o.im}) vs (${ref.re},${ref.im})`);
    }
    case 'none':
    case 'ellipsis':
      return undefined;
    case 'str': {
      const cps = codePoints((ours as { v: string }).v);
      return cps.length === ref.cps.length && cps.every((c, k) => c === ref.cps[k])
        ? undefined
        : here(`str ${JSON.stringify((ours as { v: string }).v)} vs code points ${JSON.stringify(ref.cps)}`);
    }
    case 'bytes': {
      const hex = Buffer.from((ours as { v: Uint8Array }).v).toString('hex');
      return hex === ref.hex ? undefined : here(`bytes ${hex} vs ${ref.hex}`);
    }
    case 'list':
    case 'tuple': {
      const items = (ours as { items: PyValue[] }).items;
      if (items.length !== ref.items.length) return here(`length ${items.length} vs ${ref.items.length}`);
      for (let k = 0; k < items.length; k++) {
        const d = differs(items[k]!, ref.items[k]!, `${path}[${k}]`);
        if (d) return d;
      }
      return undefined;
    }
    case 'set': {
      const items = [...(ours as { items: PyValue[] }).items];
      if (items.length !== ref.items.length) return here(`set size ${items.length} vs ${ref.items.length}`);
      for (const r of ref.items) {
        const k = items.findIndex((o) => differs(o, r) === undefined);
        if (k === -1) return here(`set element ${JSON.stringify(r, bigintJson)} missing`);
        items.splice(k, 1);
      }
      return undefined;
    }
    case 'dict': {
      const entries = (ours as { entries: Array<[PyValue, PyValue]> }).entries;
      if (entries.length !== ref.entries.length) return here(`dict size ${entries.length} vs ${ref.entries.length}`);
      for (let k = 0; k < entries.length; k++) {
        const d =
          differs(entries[k]![0], ref.entries[k]![0], `${path}.key${k}`) ??
          differs(entries[k]![1], ref.entries[k]![1], `${path}.value${k}`);
        if (d) return d;
      }
      return undefined;
    }
  }
}

export const bigintJson = (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v);

/** Whether a value contains a set (whose repr order is CPython's hash order, not emulated). */
export function containsSet(v: PyValue): boolean {
  switch (v.t) {
    case 'set':
      return true;
    case 'list':
    case 'tuple':
      return v.items.some(containsSet);
    case 'dict':
      return v.entries.some(([k, x]) => containsSet(k) || containsSet(x));
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Source generators.

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);

/** Insert underscores between digits at random (valid) or anywhere (often invalid). */
function withUnderscores(digits: string, mask: number[], wild: boolean): string {
  let out = '';
  for (let k = 0; k < digits.length; k++) {
    out += digits[k];
    const m = mask[k % mask.length] ?? 0;
    if (m === 1 && (wild || k < digits.length - 1)) out += '_';
    if (m === 2 && wild) out += '__';
  }
  return out;
}

const digitMask = fc.array(fc.constantFrom(0, 0, 0, 0, 1, 2), { minLength: 1, maxLength: 8 });

export const intSource: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), digitMask, fc.boolean())
    .map(([n, m, w]) => withUnderscores(n.toString(), m, w && m.includes(2))),
  fc
    .tuple(
      fc.bigInt({ min: 0n, max: 2n ** 80n }),
      pick(['x', 'X', 'o', 'O', 'b', 'B']),
      fc.boolean(),
      digitMask,
      fc.boolean(),
    )
    .map(([n, p, lead, m, upper]) => {
      const base = { x: 16, o: 8, b: 2 }[p.toLowerCase() as 'x' | 'o' | 'b'];
      let d = n.toString(base);
      if (upper) d = d.toUpperCase();
      return `0${p}${lead ? '_' : ''}${withUnderscores(d, m, false)}`;
    }),
  pick([
    '0',
    '00',
    '000',
    '0_0',
    '00_0',
    '007',
    '09',
    '0_7',
    '1_',
    '1__0',
    '_1',
    '0x',
    '0x_',
    '0b2',
    '0o8',
    '0b1_',
    '0xg',
    '0o_7',
    '0X_ff_FF',
    '1' + '0'.repeat(4299),
    '1' + '0'.repeat(4300),
    '1_' + '0'.repeat(4299),
    '0'.repeat(5000),
    '0x' + 'f'.repeat(1200),
  ]),
  fc.tuple(fc.integer({ min: 4290, max: 4310 }), fc.boolean()).map(([k, u]) => (u ? '9_' : '9') + '8'.repeat(k - 1)),
);

export const floatSource: fc.Arbitrary<string> = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => String(Math.abs(x))),
  fc
    .tuple(fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 }), fc.integer({ min: 0, max: 20 }))
    .map(([x, p]) => x.toExponential(p)),
  fc
    .tuple(
      fc.stringMatching(/^[0-9]{0,25}$/),
      fc.stringMatching(/^[0-9]{0,25}$/),
      pick(['', 'e', 'E', 'e+', 'e-', 'E-']),
      fc.stringMatching(/^[0-9]{0,3}$/),
      digitMask,
    )
    .map(([a, b, e, x, m]) => `${withUnderscores(a, m, false)}.${withUnderscores(b, m, false)}${e ? e + x : ''}`),
  fc
    .tuple(
      fc.stringMatching(/^[1-9][0-9]{0,5}$/),
      pick(['e', 'E']),
      pick(['', '+', '-']),
      fc.stringMatching(/^[0-9]{1,4}$/),
    )
    .map(([a, e, s, x]) => a + e + s + x),
  pick([
    '1.',
    '.5',
    '1.e5',
    '1e999',
    '-1e999',
    '1e-400',
    '1_0.5e-3',
    '00.5',
    '09.',
    '09e1',
    '1._5',
    '1.e',
    '1e_5',
    '1_e5',
    '1e5_',
    '.5_0',
    '0.0',
    '0e0',
    '0.0e-0',
    '1e16',
    '1e15',
    '1e-4',
    '1e-5',
    '123456789012345678',
    '0.1',
    '2.5e-324',
    '1.7976931348623157e308',
    '1.7976931348623159e308',
    '9007199254740993.0',
    '4.35e-7',
    '5e-324',
    '1..5',
    '1.5.5',
    '..5',
    '.e5',
  ]),
);

export const imagSource: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.oneof(intSource, floatSource), pick(['j', 'J'])).map(([n, j]) => n + j),
  pick(['0j', '00j', '07j', '0_9j', '1.j', '1e5j', '1e999j', '1ej', 'j', '1jj', '1j_']),
);

const NAMES = [
  'LATIN SMALL LETTER A',
  'latin capital letter b',
  'LF',
  'lf',
  'NUL',
  'BOM',
  'SP',
  'VS17',
  'VS256',
  'VS257',
  'CJK UNIFIED IDEOGRAPH-4E00',
  'CJK UNIFIED IDEOGRAPH-04E00',
  'cjk unified ideograph-4e00',
  'CJK UNIFIED IDEOGRAPH-9FFF',
  'CJK UNIFIED IDEOGRAPH-2A6DF',
  'CJK UNIFIED IDEOGRAPH-2A6E0',
  'CJK UNIFIED IDEOGRAPH-4DC0',
  'HANGUL SYLLABLE GA',
  'HANGUL SYLLABLE GAG',
  'HANGUL SYLLABLE A',
  'HANGUL SYLLABLE',
  'HANGUL SYLLABLE GGYAEH',
  'hangul syllable ga',
  'GREEK SMALL LETTER FINAL SIGMA',
  'SNOWMAN',
  'GRINNING FACE',
  'EM DASH',
  'NO-BREAK SPACE',
  'BOGUS NAME',
  ' LF',
  'LF ',
  'TANGUT IDEOGRAPH-17000',
  'CJK COMPATIBILITY IDEOGRAPH-F900',
  'KHITAN SMALL SCRIPT CHARACTER-18B00',
  'NUSHU CHARACTER-1B170',
  'BELL',
  'ALERT',
  'LATIN CAPITAL LETTER A WITH MACRON AND GRAVE',
  'YI SYLLABLE ITERATION MARK',
  'SPACE',
  'space',
  'LATIN SMALL LETTER É',
];

const escapePiece: fc.Arbitrary<string> = fc.oneof(
  pick([
    '\\n',
    '\\t',
    '\\\\',
    "\\'",
    '\\"',
    '\\a',
    '\\b',
    '\\f',
    '\\v',
    '\\r',
    '\\0',
    '\\00',
    '\\000',
    '\\0000',
    '\\12',
    '\\377',
    '\\400',
    '\\777',
    '\\8',
    '\\9',
    '\\d',
    '\\q',
    '\\x41',
    '\\xff',
    '\\xFf',
    '\\x4',
    '\\xg1',
    '\\u00e9',
    '\\u12',
    '\\uD83D',
    '\\ud83d',
    '\\ude00',
    '\\udfff',
    '\\U0001F600',
    '\\U00110000',
    '\\U0010ffff',
    '\\U0000004',
    '\\N',
    '\\N{',
    '\\N{}',
    '\\\n',
    '\\é',
    '\\😀',
    '\\N{LF',
  ]),
  pick(NAMES).map((n) => `\\N{${n}}`),
  fc.integer({ min: 0, max: 0xffff }).map((c) => `\\u${c.toString(16).padStart(4, '0')}`),
  fc.integer({ min: 0, max: 0x10ffff }).map((c) => `\\U${c.toString(16).padStart(8, '0')}`),
  fc.integer({ min: 0, max: 255 }).map((c) => `\\x${c.toString(16).padStart(2, '0')}`),
  fc.integer({ min: 0, max: 0o777 }).map((c) => `\\${c.toString(8)}`),
);

const plainPiece: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 4 }),
  fc.string({ unit: 'grapheme', maxLength: 2 }),
  pick([
    'é',
    'Σ',
    '😀',
    '\u00a0',
    '\u2028',
    '\x7f',
    '\x01',
    '\t',
    ' ',
    '#',
    '{',
    '}',
    'N',
    '\n',
    '\r',
    '\r\n',
    "'",
    '"',
    "''",
    '""',
  ]),
);

const PREFIXES = [
  '',
  '',
  '',
  'r',
  'R',
  'u',
  'U',
  'b',
  'B',
  'br',
  'Br',
  'bR',
  'BR',
  'rb',
  'rB',
  'Rb',
  'RB',
  'f',
  'rf',
  'F',
  'ur',
  'bu',
  'ub',
];

/** One string token: any prefix and quote, a body of plain characters and escapes (sometimes unterminated). */
export const stringToken: fc.Arbitrary<string> = fc
  .tuple(
    pick(PREFIXES),
    pick(["'", '"', "'''", '"""']),
    fc.array(fc.oneof(plainPiece, escapePiece), { maxLength: 6 }),
    fc.nat(20),
  )
  .map(([prefix, q, pieces, mode]) => {
    let body = pieces.join('');
    if (mode > 1) {
      // Mostly keep it terminated: drop the closing quote char and bare newlines from single-quoted bodies.
      if (q.length === 1) body = body.replace(/\r\n|\r|\n(?<!\\\n)/g, '');
      body = body.split(q[0]!).join(mode > 10 ? `\\${q[0]}` : '');
      if (/(^|[^\\])(\\\\)*\\$/.test(body)) body += '\\';
      if (q.length === 3 && body.endsWith(q[0]!)) body += ' ';
    }
    if (prefix.toLowerCase().includes('b') && mode > 5) body = body.replace(/[^\x00-\x7f]/gu, 'x');
    return `${prefix}${q}${body}${mode === 0 ? '' : q}`;
  });

/** One or more adjacent string tokens (implicit concatenation). */
export const stringSource: fc.Arbitrary<string> = fc
  .tuple(fc.array(stringToken, { minLength: 1, maxLength: 3 }), pick([' ', '', '  ', '\t']))
  .map(([toks, sep]) => toks.join(sep));

const SET_CALLS = [
  'set()',
  'set ( )',
  '(set)()',
  '((set))()',
  'ｓｅｔ()',
  'ſet()',
  '𝐬et()',
  'set(\n)',
  'set()()',
  'Set()',
  'set(())',
  'set(*())',
  'sets()',
  'ⓢet()',
];
const NAMED = [
  'True',
  'False',
  'None',
  '...',
  'true',
  'none',
  'Ellipsis',
  'x',
  '𝐓𝐫𝐮𝐞',
  'not 1',
  'lambda: 1',
  '[1][0]',
  '1 .real',
  'set',
  '. . .',
  '....',
];

export const atomSource: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: intSource },
  { weight: 3, arbitrary: floatSource },
  { weight: 2, arbitrary: imagSource },
  { weight: 4, arbitrary: stringSource },
  { weight: 2, arbitrary: pick(NAMED) },
  { weight: 1, arbitrary: pick(SET_CALLS) },
);

/** Mostly valid leaves, so that containers built from several of them are often valid as a whole. */
export const cleanAtomSource: fc.Arbitrary<string> = fc.oneof(
  fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
  fc.integer({ min: 0, max: 1 << 20 }).map((n) => `0x${n.toString(16)}`),
  fc.double({ noNaN: true }).map((x) => (Number.isFinite(x) ? String(x) : x > 0 ? '1e999' : '-1e999')),
  fc
    .tuple(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 }),
    )
    .map(([a, b]) => `${a} ${b < 1 ? '-' : '+'} ${b}j`),
  fc.string({ unit: 'grapheme', maxLength: 6 }).map((x) => JSON.stringify(x)),
  fc.string({ unit: 'grapheme-ascii', maxLength: 6 }).map((x) => `b${JSON.stringify(x)}`),
  fc.string({ unit: 'grapheme-ascii', maxLength: 6 }).map((x) => `r'${x.replace(/['\\]/g, '')}'`),
  fc.constantFrom(
    'True',
    'False',
    'None',
    '...',
    'set()',
    "'\\N{SNOWMAN}'",
    "'a' 'b'",
    '-0.0',
    '1j',
    '-1j',
    '0j',
    "''",
  ),
);

/** Whitespace, comments and line joins; `inside` is for places within brackets, where newlines are free. */
const gap = (inside: boolean): fc.Arbitrary<string> =>
  inside
    ? fc.oneof(
        { weight: 8, arbitrary: pick(['', ' ', '  ']) },
        { weight: 2, arbitrary: pick(['\n', '\n  ', ' # c\n', '\t', '\f', '\\\n', '\r\n', '\r', '\n\n', ' #)\n']) },
      )
    : fc.oneof(
        { weight: 12, arbitrary: pick(['', ' ']) },
        { weight: 1, arbitrary: pick(['\t', '\f', '\\\n', ' \\\n ', '\n', ' # c\n', '  ']) },
      );

/** A signed number or a complex sum, as literal_eval allows (and the forms it does not). */
const numberishSource: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      pick(['', '-', '+', '--', '- ', '+-', '-(', '~']),
      fc.oneof(intSource, floatSource, imagSource, pick(['True', '(1,)', "'a'", 'None'])),
    )
    .map(([s, n]) => (s.endsWith('(') ? `${s}${n})` : s + n)),
  fc
    .tuple(
      pick(['', '-', '+', '(-', '-(']),
      fc.oneof(intSource, floatSource, imagSource),
      pick([' + ', '-', ' - ', '+']),
      pick(['', '-', '(', '+']),
      fc.oneof(imagSource, intSource, floatSource),
    )
    .map(([s, a, op, s2, b]) => `${s}${a}${s.endsWith('(') ? ')' : ''}${op}${s2}${b}${s2 === '(' ? ')' : ''}`),
  pick([
    '1+2j+3j',
    '(1+2j)+3j',
    '1+(2j)',
    '-(1)+(2j)',
    '1j+1',
    '1*2j',
    '1' + '0'.repeat(400) + '+2j',
    '-1e999+1e999j',
    '-0.0-0j',
    '-0.0+0j',
    '0-0j',
    '-0j',
  ]),
);

/** Containers (nested), with whitespace, comments, trailing commas; often valid, sometimes not. */
export const literalSource: fc.Arbitrary<string> = fc.letrec<{ value: string; container: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: cleanAtomSource },
    { weight: 2, arbitrary: atomSource },
    { weight: 1, arbitrary: numberishSource },
    { weight: 3, arbitrary: tie('container') },
  ),
  container: fc
    .tuple(
      pick(['list', 'tuple', 'set', 'dict', 'dict', 'paren']),
      fc.array(fc.tuple(tie('value'), tie('value'), gap(true), gap(true)), { maxLength: 4 }),
      fc.boolean(),
      gap(true),
    )
    .map(([kind, elts, trailing, g]) => {
      const inner = elts
        .map(([a, b, g1, g2]) => (kind === 'dict' ? `${g1}${a}${g2}:${g1}${b}${g2}` : `${g1}${a}${g2}`))
        .join(',');
      const tc = trailing && elts.length > 0 ? ',' : '';
      switch (kind) {
        case 'list':
          return `[${inner}${tc}${g}]`;
        case 'set':
          return `{${inner}${tc}${g}}`;
        case 'dict':
          return `{${inner}${tc}${g}}`;
        case 'paren':
          return `(${inner}${g})`;
        default:
          return `(${inner}${elts.length === 1 ? ',' : tc}${g})`;
      }
    }),
})).value;

/** Keys that are equal under Python == in various spellings, for duplicate-key dicts and sets. */
const EQUAL_KEYS = [
  '1',
  '1.0',
  'True',
  '1+0j',
  '0x1',
  '0',
  '-0.0',
  'False',
  '0j',
  '-0',
  "'a'",
  '"a"',
  "u'a'",
  "b'a'",
  '(1, 2)',
  '(1.0, 2)',
  '(True, 2+0j)',
  '[1]',
  '{1: 2}',
  'set()',
  '()',
  'None',
  '...',
  '2**1',
  '9007199254740993',
  '9007199254740992.0',
  '1e16',
  '10000000000000000',
];

export const dupKeySource: fc.Arbitrary<string> = fc
  .tuple(
    fc.array(fc.tuple(pick(EQUAL_KEYS), fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 6 }),
    fc.boolean(),
  )
  .map(([kv, isSet]) =>
    isSet ? `{${kv.map(([k]) => k).join(', ')}}` : `{${kv.map(([k, v]) => `${k}: ${v}`).join(', ')}}`,
  );

/** Top-level forms: a bare tuple, leading/trailing whitespace, blank and comment lines, indentation. */
export const topLevelSource: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      { weight: 10, arbitrary: pick(['', ' ', '\t', '  \t', '\n', '\n\n', '# c\n', '\f', '\\\n', ' \\\n', '\r\n']) },
      {
        weight: 2,
        arbitrary: pick([
          '\f ',
          '\\\n ',
          '\n ',
          '\ufeff',
          '\f\\\n',
          '\\\n\\\n',
          '\t\\\n  \\\n',
          '\f \\\n',
          '\f\t\\\n',
          '\f\\\n ',
          '\f \\\n\\\n',
          '#c\n \\\n',
          '\n\t\\\n',
          '\n\\\n \\\n',
          '\f\f',
          ' \f \f',
          '\n\f',
          '#c\n \\\n\f',
          '\f \\\n\f',
        ]),
      },
    ),
    fc.oneof(
      { weight: 4, arbitrary: literalSource },
      { weight: 1, arbitrary: fc.array(literalSource, { minLength: 1, maxLength: 3 }).map((xs) => xs.join(', ')) },
      { weight: 1, arbitrary: dupKeySource },
    ),
    fc.oneof(
      { weight: 5, arbitrary: fc.constant('') },
      {
        weight: 1,
        arbitrary: pick([
          ',',
          '\n',
          '\n\n',
          '  ',
          ' # c',
          '\n# c',
          '\n ',
          '\n \n',
          '\\',
          '\\\n',
          ' \\\n\n',
          ';',
          '\n1',
          '\r',
          '\x00',
          '\ud800',
        ]),
      },
    ),
  )
  .map(([a, b, c]) => a + b + c);

/** Near-valid garbage: a valid-ish source with one character deleted, inserted or replaced. */
export const mutatedSource: fc.Arbitrary<string> = fc
  .tuple(topLevelSource, fc.nat(), pick(['del', 'ins', 'rep']), pick([...`'"\\()[]{},:+-.#_0xjeEbrufN \n\t*~1`]))
  .map(([src, at, how, ch]) => {
    const k = src.length === 0 ? 0 : at % (src.length + 1);
    if (how === 'del') return src.slice(0, k) + src.slice(k + 1);
    if (how === 'ins') return src.slice(0, k) + ch + src.slice(k);
    return src.slice(0, k) + ch + src.slice(k + 1);
  });

/** Random text over the characters the grammar cares about. */
export const grammarNoise: fc.Arbitrary<string> = fc
  .array(
    pick([
      ...`'"\\()[]{},:+-.#_0123456789xXoObBjJeErRuUfFN \n\t\f*j{}`,
      'True',
      'None',
      'set',
      '...',
      '0x',
      '1e',
      "'''",
      '"""',
      '\\N{LF}',
    ]),
    { maxLength: 16 },
  )
  .map((xs) => xs.join(''));

/** Brackets nested around 200 deep (CPython's tokenizer allows at most 200 open brackets). */
export const deepSource: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: 195, max: 205 }),
    fc.array(fc.constantFrom('()', '[]', '(,)', '{}', '{:}', 'set'), { minLength: 1, maxLength: 5 }),
    fc.constantFrom('1', '', '-1+2j', "'a'"),
  )
  .map(([depth, kinds, core]) => {
    let out: string = core;
    for (let d = 0; d < depth; d++) {
      const k = kinds[d % kinds.length]!;
      if (k === '(,)') out = `(${out},)`;
      else if (k === '{:}') out = `{1: ${out}}`;
      else if (k === 'set') out = `(${out || 'set()'})`;
      else out = `${k[0]}${out}${k[1]}`;
    }
    return out;
  });

// ---------------------------------------------------------------------------------------------------------------
// ToolHop scorer inputs: gold answers, final messages and tool results that exercise every branch of score_answer.

const GOLDS = [
  '1998',
  '2017-10-13',
  "O'Sullivan",
  'Sun',
  '[3, 631]',
  '5.0',
  '5',
  '1,000',
  '1000',
  "'abc'",
  'True',
  'None',
  '1e3',
  '0x1F',
  '-5',
  '1+2j',
  'Paris',
  'paris',
  'İstanbul',
  'ΟΔΥΣΣΕΥΣ',
  'straße',
  '12.50',
  '3.0.0',
  '(1, 2)',
  '{1: 2}',
  '  42  ',
  '42.0',
  'Thomas Mawson',
  's',
  'tn',
  '1101111',
  '0',
  '007',
  '1_000',
  'set()',
  '\u00a0x',
  'x\x1c',
  'ſ',
  '1.0',
  '.0',
  '',
  ' ',
  ',',
  'a,b',
  // where Python and JS disagree on whitespace or case: strip() vs trim(), Unicode 14 vs Node's newer tables
  '42\x1c',
  '\x85 7',
  '\ufeff42',
  '1998\u2028',
  '\u1c89',
  'A\u1c89Σ',
  '\u2c2f',
  'ΣΑΣ',
];

const goldText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...GOLDS) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  { weight: 1, arbitrary: cleanAtomSource },
);

/** Spell an answer the way a model might: case, ".0", commas, quotes, spacing. */
const answerVariant = (gold: string): fc.Arbitrary<string> =>
  fc.constantFrom(
    gold,
    gold.toUpperCase(),
    gold.toLowerCase(),
    `${gold}.0`,
    gold.replace(/(\d)(\d{3})\b/, '$1,$2'),
    `'${gold}'`,
    `"${gold}"`,
    ` ${gold} `,
    `${gold}.`,
    `[${gold}]`,
    `(${gold},)`,
    `${gold}, ${gold}`,
    `about ${gold} or so`,
    gold.replace(/\.0$/, ''),
    `${gold}0`,
  );

const TAGS = [
  '<answer>',
  '</answer>',
  '<ANSWER>',
  '</Answer>',
  '<anſwer>',
  '<answer >',
  '< answer>',
  '<answer><answer>',
  '</answer></answer>',
];

/** A final assistant message: prose, zero or more (possibly odd, nested or unclosed) answer tags around a variant. */
export const messageFor = (gold: string): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom(
        '',
        'The answer is ',
        'Thinking... done.\n',
        '<answer>draft</answer> final: ',
        'I found ',
        '\u2028',
      ),
      fc.constantFrom('plain', 'tagged', 'tagged', 'tagged', 'open-only', 'close-only', 'twice', 'nested', 'odd'),
      answerVariant(gold),
      fc.constantFrom(...TAGS),
      fc.constantFrom('', '.', '\n', ' Hope this helps.', '</answer> trailing', ' \x85'),
      fc.constantFrom('', ' ', '\n', '\t', '\x1c'),
    )
    .map(([pre, shape, ans, odd, post, ws]) => {
      switch (shape) {
        case 'plain':
          return pre + ans + post;
        case 'tagged':
          return `${pre}<answer>${ws}${ans}${ws}</answer>${post}`;
        case 'open-only':
          return `${pre}<answer>${ans}${post}`;
        case 'close-only':
          return `${pre}${ans}</answer>${post}`;
        case 'twice':
          return `${pre}<answer>wrong</answer> then <answer>${ans}</answer>${post}`;
        case 'nested':
          return `${pre}<answer>x <answer>${ans}</answer> y</answer>${post}`;
        default:
          return `${pre}${odd}${ans}${odd}${post}`;
      }
    });

/** Text for extract_answer / answer_key: messages, and arbitrary strings with tags sprinkled in. */
export const messageText: fc.Arbitrary<string> = fc.oneof(
  goldText.chain(messageFor),
  fc
    .array(
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 4 }),
        fc.constantFrom(...TAGS, ' ', '\n', ',', '.0', 'Σ', 'ſ', '\x85'),
      ),
      { maxLength: 8 },
    )
    .map((xs) => xs.join('')),
);

/** A tool result: empty, JSON holding the answer in some spelling, or unrelated text. */
export const toolFor = (gold: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant(''),
    answerVariant(gold).map((a) => JSON.stringify({ result: a })),
    answerVariant(gold).map((a) => `{"value": ${a}}`),
    fc.constantFrom('{"error": "not found"}', 'null', '{"value": 12,345.0}', '0'),
    fc.string({ maxLength: 6 }),
  );

/** (gold, final message, previous tool content) triples. */
export const scoreTriple: fc.Arbitrary<[string, string, string]> = goldText.chain((gold) =>
  fc.tuple(
    fc.constant(gold),
    fc.oneof({ weight: 4, arbitrary: messageFor(gold) }, { weight: 1, arbitrary: goldText.chain(messageFor) }),
    toolFor(gold),
  ),
);
