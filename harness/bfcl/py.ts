// Python value helpers for the BFCL emulation: dict access with Python key equality, `x in list`, and the pieces
// of Python's `re` syntax that differ from JS. Type names and int()/float() of a str are the core's
// (harness/core/pyliteral/builtins.ts).
import { typeName } from '../core/pyliteral/builtins.ts';
import { hashKey, pyEquals, pyRepr, type PyValue } from '../core/pyliteral/index.ts';

export type { PyValue };

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
export const list = (items: PyValue[]): PyValue => ({ t: 'list', items });

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
      else if (e === 'b')
        out += inClass
          ? '\\x08'
          : '(?:(?<=[\\p{L}\\p{N}_])(?![\\p{L}\\p{N}_])|(?<![\\p{L}\\p{N}_])(?=[\\p{L}\\p{N}_]))';
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

/** Python's str.strip(chars) for a set of characters. */
export function stripChars(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a]!)) a++;
  while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** A Python-ish rendering of a value for error messages (not compared with BFCL's text). */
export const show = (v: PyValue): string => pyRepr(v);
