// Python repr() of literal values (CPython 3.11: float_repr 'r' format, unicode_repr, bytes_repr).
import { isPyPrintable } from './unicode.ts';
import type { PyValue } from './value.ts';

/**
 * repr(float), or the 'r' format without ".0" for complex parts: shortest round-trip digits, exponent when the
 * decimal exponent is < -4 or >= 16.
 */
export function floatRepr(x: number, addDot0 = true): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  if (x === 0) return sign + (addDot0 ? '0.0' : '0');
  // toExponential() with no argument gives the shortest digits that round-trip, nearest when several do.
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(Math.abs(x).toExponential());
  if (!m) throw new Error(`unexpected toExponential output for ${x}`);
  const digits = m[1]! + (m[2] ?? '');
  const decpt = Number(m[3]) + 1; // x = 0.d1d2... * 10**decpt
  if (decpt <= -4 || decpt > 16) {
    const e = decpt - 1;
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}${addDot0 ? '.0' : ''}`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

function complexRepr(re: number, im: number): string {
  if (re === 0 && !Object.is(re, -0)) return `${floatRepr(im, false)}j`;
  const ims = floatRepr(im, false);
  return `(${floatRepr(re, false)}${ims.startsWith('-') ? '' : '+'}${ims}j)`;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x7f || isPyPrintable(cp)) out += ch;
    else if (cp <= 0xff) out += `\\x${hex(cp, 2)}`;
    else if (cp <= 0xffff) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + quote;
}

function bytesRepr(b: Uint8Array): string {
  const has = (c: number) => b.includes(c);
  const quote = has(0x27) && !has(0x22) ? 0x22 : 0x27;
  let out = `b${String.fromCharCode(quote)}`;
  for (const c of b) {
    if (c === quote || c === 0x5c) out += `\\${String.fromCharCode(c)}`;
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c < 0x20 || c >= 0x7f) out += `\\x${hex(c, 2)}`;
    else out += String.fromCharCode(c);
  }
  return out + String.fromCharCode(quote);
}

/**
 * Python's repr(). Differences from CPython: sets print in first-insertion order (CPython's order follows its hash
 * table, and for str elements changes with PYTHONHASHSEED); ints print in full (CPython refuses repr() of ints
 * over 4300 digits).
 */
export function pyRepr(v: PyValue): string {
  switch (v.t) {
    case 'int':
      return v.v.toString();
    case 'float':
      return floatRepr(v.v);
    case 'complex':
      return complexRepr(v.re, v.im);
    case 'bool':
      return v.v ? 'True' : 'False';
    case 'none':
      return 'None';
    case 'ellipsis':
      return 'Ellipsis';
    case 'str':
      return strRepr(v.v);
    case 'bytes':
      return bytesRepr(v.v);
    case 'list':
      return `[${v.items.map(pyRepr).join(', ')}]`;
    case 'tuple':
      return v.items.length === 1 ? `(${pyRepr(v.items[0]!)},)` : `(${v.items.map(pyRepr).join(', ')})`;
    case 'set':
      return v.items.length === 0 ? 'set()' : `{${v.items.map(pyRepr).join(', ')}}`;
    case 'dict':
      return `{${v.entries.map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  }
}
