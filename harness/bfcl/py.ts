// Python value helpers for the BFCL emulation: type names as type() sees them, dict access with Python key
// equality, `x in list`, int()/float() of a str, and the pieces of Python's `re` syntax that differ from JS.
import { hashKey, pyEquals, pyRepr, type PyValue } from '../core/pyliteral/index.ts';

export type { PyValue };
export { pyEquals, pyRepr };

/**
 * BFCL's Python would raise here (KeyError, TypeError, NotImplementedError …) and, uncaught, end the whole
 * evaluation run. toolgauge records the case as a checker crash instead.
 */
export class BfclCrash extends Error {
  override name = 'BfclCrash';
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(`${pyType}: ${message}`);
  }
}

/** The emulation cannot decide this input exactly (e.g. arithmetic on names in a decoded argument). */
export class BfclUnsupported extends Error {
  override name = 'BfclUnsupported';
}

export const str = (v: string): PyValue => ({ t: 'str', v });
export const int = (v: bigint | number): PyValue => ({ t: 'int', v: BigInt(v) });
export const float = (v: number): PyValue => ({ t: 'float', v });
export const bool = (v: boolean): PyValue => ({ t: 'bool', v });
export const NONE: PyValue = { t: 'none' };
export const list = (items: PyValue[]): PyValue => ({ t: 'list', items });
export const dict = (entries: Array<[string, PyValue]>): PyValue => ({ t: 'dict', entries: entries.map(([k, v]) => [str(k), v]) });

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

export function isStr(v: PyValue | undefined): v is { t: 'str'; v: string } {
  return v?.t === 'str';
}

/** `d[key]` for a dict (undefined when absent or when d is not a dict). */
export function dictGet(d: PyValue, key: PyValue | string): PyValue | undefined {
  if (d.t !== 'dict') return undefined;
  const k = hashKey(typeof key === 'string' ? str(key) : key);
  for (const [ek, ev] of d.entries) {
    try {
      if (hashKey(ek) === k) return ev;
    } catch {
      // an unhashable key cannot equal a hashable one
    }
  }
  return undefined;
}

export const dictHas = (d: PyValue, key: PyValue | string): boolean => dictGet(d, key) !== undefined;

/** `x in seq` for a list or tuple (Python ==: 1 == 1.0 == True). */
export function pyIn(x: PyValue, seq: readonly PyValue[]): boolean {
  return seq.some((y) => pyEquals(x, y));
}

/** The list items of a list or tuple value; a crash (TypeError) for anything Python could not iterate like that. */
export function itemsOf(v: PyValue, what: string): PyValue[] {
  if (v.t === 'list' || v.t === 'tuple' || v.t === 'set') return v.items;
  if (v.t === 'dict') return v.entries.map(([k]) => k);
  if (v.t === 'str') return Array.from(v.v, (c) => str(c));
  throw new BfclCrash('TypeError', `'${typeName(v)}' object is not iterable (${what})`);
}

// ---------------------------------------------------------------------------------------------------------
// Python's `re` on str patterns, in JS (flag `u`): \d is any Unicode decimal digit, \s is str.isspace(),
// \w is alphanumeric or underscore, `.` excludes only \n, and `$` also matches before a final \n.

export const PY_D = '\\p{Nd}';
export const PY_S = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
export const PY_W = '[\\p{L}\\p{N}_]';
export const PY_DOT = '[^\\n]';
export const PY_END = '(?=\\n?$)';

/** Compile a Python-syntax pattern (using only \d \s \w . $ as specials that differ) into a JS RegExp. */
export function pyRegex(pattern: string, flags = '', dotall = false): RegExp {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const e = pattern[i + 1]!;
      i++;
      if (e === 'd') out += inClass ? '\\p{Nd}' : PY_D;
      else if (e === 's') out += inClass ? PY_S.slice(1, -1) : PY_S;
      else if (e === 'w') out += inClass ? '\\p{L}\\p{N}_' : PY_W;
      else if (e === 'b') out += inClass ? '\\x08' : '(?:(?<=[\\p{L}\\p{N}_])(?![\\p{L}\\p{N}_])|(?<![\\p{L}\\p{N}_])(?=[\\p{L}\\p{N}_]))';
      else if (/[A-Za-z0-9]/.test(e)) out += `\\${e}`;
      else if ('^$\\.*+?()[]{}|/'.includes(e) || (inClass && e === '-')) out += `\\${e}`;
      else out += e;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (pattern[i + 1] === '^') (out += '^'), i++;
      if (pattern[i + 1] === ']') (out += '\\]'), i++;
      continue;
    }
    if (c === '.') out += dotall ? '[^]' : PY_DOT;
    else if (c === '$') out += PY_END;
    else out += c;
  }
  return new RegExp(out, `${flags}u`);
}

/** `re.match(pattern, s)`: anchored at the start only. */
export function reMatch(re: RegExp, s: string): RegExpExecArray | null {
  const sticky = new RegExp(re.source, re.flags.replace('g', '') + 'y');
  sticky.lastIndex = 0;
  return sticky.exec(s);
}

/** `re.search(pattern, s)`. */
export function reSearch(re: RegExp, s: string): RegExpExecArray | null {
  return new RegExp(re.source, re.flags.replace(/[gy]/g, '')).exec(s);
}

/** `re.findall(pattern, s)` for a pattern with groups: one tuple of groups per match ('' for unmatched). */
export function reFindall(re: RegExp, s: string): string[][] {
  const g = new RegExp(re.source, re.flags.replace(/[gy]/g, '') + 'g');
  return [...s.matchAll(g)].map((m) => m.slice(1).map((x) => x ?? ''));
}

// ---------------------------------------------------------------------------------------------------------
// int(s) and float(s) of a str

const isPySpaceChar = (c: string) => new RegExp(`^${PY_S}$`, 'u').test(c);

function pyStripSpaces(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isPySpaceChar(s[a]!)) a++;
  while (b > a && isPySpaceChar(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** Unicode decimal digits → ASCII (Nd digits come in runs of ten, zero first). */
function asciiDigits(s: string): string {
  let out = '';
  for (const ch of s) {
    if (/^\p{Nd}$/u.test(ch) && !/[0-9]/.test(ch)) {
      let cp = ch.codePointAt(0)!;
      let k = 0;
      while (/^\p{Nd}$/u.test(String.fromCodePoint(cp - 1))) cp--, k++;
      out += String(k % 10);
    } else out += ch;
  }
  return out;
}

/** Python's int(s) for a str; undefined where it raises ValueError. */
export function pyIntOfStr(s: string): bigint | undefined {
  const t = asciiDigits(pyStripSpaces(s));
  if (!/^[+-]?[0-9]+(?:_[0-9]+)*$/.test(t)) return undefined;
  const digits = t.replace(/_/g, '').replace(/^[+-]/, '');
  if (digits.replace(/^0+/, '').length > 4300) return undefined;
  return BigInt(t.replace(/_/g, '').replace(/^\+/, ''));
}

/** Python's float(s) for a str; undefined where it raises ValueError. */
export function pyFloatOfStr(s: string): number | undefined {
  const t = asciiDigits(pyStripSpaces(s));
  const m = /^([+-]?)(?:(inf|infinity)|(nan))$/i.exec(t);
  if (m) return m[3] ? NaN : m[1] === '-' ? -Infinity : Infinity;
  const d = '[0-9](?:_?[0-9])*';
  if (!new RegExp(`^[+-]?(?:${d}(?:\\.(?:${d})?)?|\\.${d})(?:[eE][+-]?${d})?$`).test(t)) return undefined;
  return Number(t.replace(/_/g, ''));
}

/** Python's str.strip(chars) for a set of characters. */
export function stripChars(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a]!)) a++;
  while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

export { pyStripSpaces as pyStrip };

/** A Python-ish rendering of a value for error messages (not compared with BFCL's text). */
export const show = (v: PyValue): string => pyRepr(v);
