// Lookups over the generated tables in unicode-tables.ts (CPython 3.11's own Unicode 14 data, not Node's ICU).
import {
  CASED_RANGES,
  CASE_IGNORABLE_RANGES,
  CJK_UNIFIED_RANGES,
  LOWER_MULTI,
  LOWER_SINGLE,
  NONPRINTABLE_RANGES,
  SET_LETTERS,
  SPACE_RANGES,
} from './unicode-tables.ts';

/** Decode "delta.length" base-36 pairs into a flat [start0, end0, start1, end1, ...] array. */
function decodeRanges(text: string): Uint32Array {
  const parts = text.split(',');
  const out = new Uint32Array(parts.length * 2);
  let prev = 0;
  parts.forEach((p, i) => {
    const [d, l] = p.split('.');
    const start = prev + parseInt(d!, 36);
    const end = start + parseInt(l!, 36);
    out[2 * i] = start;
    out[2 * i + 1] = end;
    prev = end;
  });
  return out;
}

function inRanges(r: Uint32Array, cp: number): boolean {
  let lo = 0;
  let hi = r.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < r[2 * mid]!) hi = mid - 1;
    else if (cp > r[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

function lazy<T>(make: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= make());
}

const space = lazy(() => decodeRanges(SPACE_RANGES));
const nonPrintable = lazy(() => decodeRanges(NONPRINTABLE_RANGES));
const caseIgnorable = lazy(() => decodeRanges(CASE_IGNORABLE_RANGES));
const cased = lazy(() => decodeRanges(CASED_RANGES));
const cjk = lazy(() => decodeRanges(CJK_UNIFIED_RANGES));

const lowerMap = lazy(() => {
  const m = new Map<number, string>();
  let prev = 0;
  for (const e of LOWER_SINGLE.split(',')) {
    const k = e.search(/[+-]/);
    const cp = prev + parseInt(e.slice(0, k), 36);
    const off = parseInt(e.slice(k + 1), 36) * (e[k] === '-' ? -1 : 1);
    m.set(cp, String.fromCodePoint(cp + off));
    prev = cp;
  }
  for (const [cp, to] of LOWER_MULTI) m.set(cp, String.fromCodePoint(...to));
  return m;
});

const setLetters = lazy(() => {
  const m = new Map<number, string>();
  for (const e of SET_LETTERS.split(',')) {
    const [cp, letter] = e.split(':');
    m.set(parseInt(cp!, 36), letter!);
  }
  return m;
});

/** Python's str.isspace() for one code point (also what `\s` matches in a str regex). */
export function isPySpace(cp: number): boolean {
  if (cp < 0x80) return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1f);
  return inRanges(space(), cp);
}

/** Python's str.isprintable() for one code point. */
export function isPyPrintable(cp: number): boolean {
  return !inRanges(nonPrintable(), cp);
}

/** CPython's _PyUnicode_IsCaseIgnorable, as its Final_Sigma rule uses it. */
export function isCaseIgnorable(cp: number): boolean {
  return inRanges(caseIgnorable(), cp);
}

/** CPython's _PyUnicode_IsCased, for code points that are not case-ignorable. */
export function isCasedNotIgnorable(cp: number): boolean {
  return inRanges(cased(), cp);
}

/** str.lower() of one code point other than U+03A3 (capital sigma depends on its neighbours). */
export function lowerOf(cp: number): string | undefined {
  if (cp < 0x80) return cp >= 0x41 && cp <= 0x5a ? String.fromCharCode(cp + 32) : undefined;
  return lowerMap().get(cp);
}

/** The letter of "set" a non-ASCII identifier character normalises (NFKC) to, if any. */
export function setLetterOf(cp: number): string | undefined {
  return setLetters().get(cp);
}

/** Code points named "CJK UNIFIED IDEOGRAPH-XXXX" in this Unicode version. */
export function isUnifiedIdeograph(cp: number): boolean {
  return inRanges(cjk(), cp);
}
