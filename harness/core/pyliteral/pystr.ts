// Python str operations on JS strings. A JS string maps to a Python str the way json.loads builds one: a surrogate
// pair is one code point, a lone surrogate is a code point of its own.
import { isCaseIgnorable, isCasedNotIgnorable, isPySpace, lowerOf } from './unicode.ts';

/** The code points of a string (lone surrogates kept). */
export function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}

/** Python's str.strip() with no argument: strips str.isspace() characters (not JS trim's set). */
export function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  // Every Python whitespace character is in the BMP and not a surrogate, so code units suffice.
  while (a < b && isPySpace(s.charCodeAt(a))) a++;
  while (b > a && isPySpace(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}

/** Python's str.lstrip(chars) for an explicit set of BMP characters. */
export function pyLstripChars(s: string, chars: string): string {
  let a = 0;
  while (a < s.length && chars.includes(s[a]!)) a++;
  return s.slice(a);
}

/** A Python str as code points back to a JS string (adjacent surrogate code points fuse: see cps* helpers). */
export function fromCodePoints(cps: readonly number[]): string {
  let out = '';
  for (let k = 0; k < cps.length; k += 4096) out += String.fromCodePoint(...cps.slice(k, k + 4096));
  return out;
}

/** Python's str.lower(): full lowercase mapping (Unicode 14) with CPython's Final_Sigma handling. */
export function pyLower(s: string): string {
  if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase();
  return fromCodePoints(cpsLower(codePoints(s)));
}

/** str.lower() on code points. */
export function cpsLower(cps: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i]!;
    if (cp === 0x3a3) out.push(finalSigma(cps, i) ? 0x3c2 : 0x3c3);
    else {
      const low = lowerOf(cp);
      if (low === undefined) out.push(cp);
      else for (const ch of low) out.push(ch.codePointAt(0)!);
    }
  }
  return out;
}

/** str.removesuffix on code points. */
export function cpsRemoveSuffix(cps: readonly number[], suffix: readonly number[]): number[] {
  const k = cps.length - suffix.length;
  if (suffix.length === 0 || k < 0 || !suffix.every((c, j) => cps[k + j] === c)) return [...cps];
  return cps.slice(0, k);
}

/** `needle in hay` on code points. */
export function cpsIncludes(hay: readonly number[], needle: readonly number[]): boolean {
  if (needle.length === 0) return true;
  const first = needle[0]!;
  outer: for (let k = hay.indexOf(first); k !== -1 && k + needle.length <= hay.length; k = hay.indexOf(first, k + 1)) {
    for (let j = 1; j < needle.length; j++) if (hay[k + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

// CPython handle_capital_sigma: \p{cased}\p{case-ignorable}* U+03A3 !(\p{case-ignorable}* \p{cased})
function finalSigma(cps: readonly number[], i: number): boolean {
  let j = i - 1;
  while (j >= 0 && isCaseIgnorable(cps[j]!)) j--;
  if (!(j >= 0 && isCasedNotIgnorable(cps[j]!))) return false;
  j = i + 1;
  while (j < cps.length && isCaseIgnorable(cps[j]!)) j++;
  return j === cps.length || !isCasedNotIgnorable(cps[j]!);
}

const isHigh = (u: number) => u >= 0xd800 && u <= 0xdbff;
const isLow = (u: number) => u >= 0xdc00 && u <= 0xdfff;

/** Whether code-unit range [start, end) of hay begins and ends on code point boundaries. */
function onBoundaries(hay: string, start: number, end: number): boolean {
  if (start > 0 && start < hay.length && isLow(hay.charCodeAt(start)) && isHigh(hay.charCodeAt(start - 1)))
    return false;
  if (end > 0 && end < hay.length && isLow(hay.charCodeAt(end)) && isHigh(hay.charCodeAt(end - 1))) return false;
  return true;
}

/** Python's str.removesuffix(suffix): removes one occurrence. */
export function removeSuffix(s: string, suffix: string): string {
  if (suffix === '' || !s.endsWith(suffix)) return s;
  const k = s.length - suffix.length;
  return onBoundaries(s, k, s.length) ? s.slice(0, k) : s;
}
