// Python 3.11 builtins on values both emulations of Python code need (BFCL's checker and eval, API-Bank's API
// classes): `type(v).__name__`, truth value, and `int(s)` / `float(s)` of a str.
import { pyStrip } from './pystr.ts';
import type { PyValue } from './value.ts';

const TYPE_NAMES: Record<PyValue['t'], string> = {
  int: 'int',
  float: 'float',
  complex: 'complex',
  bool: 'bool',
  none: 'NoneType',
  str: 'str',
  bytes: 'bytes',
  list: 'list',
  tuple: 'tuple',
  set: 'set',
  dict: 'dict',
  ellipsis: 'ellipsis',
};

/** `type(v).__name__`. */
export const typeName = (v: PyValue): string => TYPE_NAMES[v.t];

/** `bool(v)`. */
export function truthy(v: PyValue): boolean {
  switch (v.t) {
    case 'int':
      return v.v !== 0n;
    case 'bool':
      return v.v;
    case 'float':
      return v.v !== 0;
    case 'complex':
      return v.re !== 0 || v.im !== 0;
    case 'none':
      return false;
    case 'ellipsis':
      return true;
    case 'str':
    case 'bytes':
      return v.v.length > 0;
    case 'list':
    case 'tuple':
    case 'set':
      return v.items.length > 0;
    case 'dict':
      return v.entries.length > 0;
  }
}

/** Unicode decimal digits as ASCII ones, as int() and float() read them ('༤' is 4): Nd digits come in runs of ten, zero first. */
function asciiDigits(s: string): string {
  let out = '';
  for (const ch of s) {
    if (ch >= '0' && ch <= '9') out += ch;
    else if (/\p{Nd}/u.test(ch)) {
      let cp = ch.codePointAt(0)!;
      let steps = 0;
      while (/\p{Nd}/u.test(String.fromCodePoint(cp - 1))) {
        cp--;
        steps++;
      }
      out += String(steps % 10);
    } else out += ch;
  }
  return out;
}

// sys.get_int_max_str_digits() default in 3.11.
const INT_MAX_STR_DIGITS = 4300;
const INT_RE = /^[+-]?[0-9]+(?:_[0-9]+)*$/;
const DIGITS = '[0-9](?:_?[0-9])*';
const FLOAT_RE = new RegExp(`^[+-]?(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?$`);
const FLOAT_SPECIAL = /^([+-]?)(?:(inf|infinity)|(nan))$/i;

/** `int(s)` for a str (base 10: leading zeros and single underscores between digits allowed); undefined where it raises ValueError. */
export function pyIntOfStr(s: string): bigint | undefined {
  const t = asciiDigits(pyStrip(s));
  if (!INT_RE.test(t)) return undefined;
  const digits = t.replace(/_/g, '').replace(/^[+-]/, '');
  if (digits.length > INT_MAX_STR_DIGITS) return undefined; // leading zeros count too
  return BigInt(t.replace(/_/g, '').replace(/^\+/, ''));
}

/** `float(s)` for a str; undefined where it raises ValueError. */
export function pyFloatOfStr(s: string): number | undefined {
  const t = asciiDigits(pyStrip(s));
  const special = FLOAT_SPECIAL.exec(t);
  if (special) return special[3] ? Number.NaN : special[1] === '-' ? -Infinity : Infinity;
  if (!FLOAT_RE.test(t)) return undefined;
  return Number(t.replace(/_/g, ''));
}
