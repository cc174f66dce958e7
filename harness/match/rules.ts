import type { ArgRule } from './types.ts';

/**
 * Argument comparison under per-argument rules (docs/probe.md): equivalents, set match, ISO datetime (with or
 * without timezone), numeric tolerance, case-folding, and a deterministic fuzzy text match (Toolhound's
 * `semantic`, approximated by normalised token overlap — no model is asked). Pure.
 *
 * Rules are keyed by argument path: `location`, `customer.email`, `items[]` (each element), `items[].name`.
 * Defaults without a rule: strings equal after trimming and collapsing whitespace; numbers equal within 1e-9
 * (a numeric string counts: the value is right, a wrong type is the schema check's business); arrays in order;
 * objects key by key, extra keys in the actual value allowed. `casefold` and `tolerance` carry down to nested values.
 */

export interface Mismatch {
  path: string;
  expected: unknown;
  actual: unknown;
  reason: string;
}

interface Inherited {
  casefold: boolean;
  tolerance: number;
}

const EPS = 1e-9;

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Compare a call's arguments with the expected ones; [] means they match. */
export function compareArgs(
  expected: Record<string, unknown>,
  actual: Record<string, unknown>,
  rules: Record<string, ArgRule> = {},
): Mismatch[] {
  const out: Mismatch[] = [];
  compareObject(expected, actual, '', rules, { casefold: false, tolerance: EPS }, out);
  return out;
}

function compareObject(
  e: Record<string, unknown>,
  a: Record<string, unknown>,
  prefix: string,
  rules: Record<string, ArgRule>,
  inh: Inherited,
  out: Mismatch[],
): void {
  for (const [k, ev] of Object.entries(e)) {
    const path = prefix ? `${prefix}.${k}` : k;
    const rule = rules[path];
    if (!(k in a) || a[k] === undefined) {
      if (!rule?.optional) out.push({ path, expected: ev, actual: undefined, reason: 'missing' });
      continue;
    }
    const m = compareValue(ev, a[k], path, rules, inh);
    if (m) out.push(m);
  }
}

/** null when `a` is acceptable for expected `e` at `path`, else the mismatch (against `e` itself). */
export function compareValue(
  e: unknown,
  a: unknown,
  path: string,
  rules: Record<string, ArgRule>,
  inh: Inherited = { casefold: false, tolerance: EPS },
): Mismatch | null {
  const rule = rules[path];
  const eff: Inherited = { casefold: rule?.casefold ?? inh.casefold, tolerance: rule?.tolerance ?? inh.tolerance };
  let first: Mismatch | null = null;
  for (const cand of [e, ...(rule?.equiv ?? [])]) {
    const reason = equalUnder(cand, a, path, rule, rules, eff);
    if (reason === null) return null;
    first ??= { path, expected: e, actual: a, reason };
  }
  if (first && rule?.equiv?.length) first.reason = `${first.reason} (and none of ${rule.equiv.length} equivalents)`;
  return first;
}

/** null when equal, else why not. */
function equalUnder(
  e: unknown,
  a: unknown,
  path: string,
  rule: ArgRule | undefined,
  rules: Record<string, ArgRule>,
  inh: Inherited,
): string | null {
  const precision =
    rule?.datetime ??
    (rule?.normalize === 'iso8601_date'
      ? 'day'
      : rule?.normalize === 'iso8601_second'
        ? 'second'
        : rule?.normalize
          ? 'minute'
          : undefined);
  if (precision) return compareDatetime(e, a, precision, rule?.timezone ?? 'ignore');
  if (rule?.match === 'fuzzy' || rule?.match === 'semantic') {
    if (typeof a !== 'string') return `expected text, got ${typeName(a)}`;
    return fuzzyEqual(String(e), a) ? null : 'text differs';
  }
  if (Array.isArray(e)) {
    if (!Array.isArray(a)) return `expected an array, got ${typeName(a)}`;
    if (e.length !== a.length) return `expected ${e.length} items, got ${a.length}`;
    const child = `${path}[]`;
    if (rule?.match === 'set') return setEqual(e, a, child, rules, inh) ? null : 'different items (compared as a set)';
    for (let i = 0; i < e.length; i++) {
      const m = compareValue(e[i], a[i], child, rules, inh);
      if (m) return `item ${i}: ${m.reason}`;
    }
    return null;
  }
  if (isObj(e)) {
    if (!isObj(a)) return `expected an object, got ${typeName(a)}`;
    const sub: Mismatch[] = [];
    compareObject(e, a, path, rules, inh, sub);
    return sub.length ? sub.map((m) => `${m.path}: ${m.reason}`).join('; ') : null;
  }
  if (typeof e === 'number') {
    const n = typeof a === 'number' ? a : typeof a === 'string' && a.trim() !== '' ? Number(a) : NaN;
    if (!Number.isFinite(n)) return `expected a number, got ${typeName(a)}`;
    return Math.abs(n - e) <= Math.max(inh.tolerance, EPS)
      ? null
      : `${n} is not ${e}${inh.tolerance > EPS ? ` ± ${inh.tolerance}` : ''}`;
  }
  if (typeof e === 'boolean') {
    const b =
      typeof a === 'boolean'
        ? a
        : a === 'true' || a === 'True'
          ? true
          : a === 'false' || a === 'False'
            ? false
            : undefined;
    return b === e ? null : `expected ${e}, got ${JSON.stringify(a)}`;
  }
  if (e === null) return a === null ? null : `expected null, got ${typeName(a)}`;
  if (typeof e === 'string') {
    if (typeof a !== 'string' && typeof a !== 'number' && typeof a !== 'boolean')
      return `expected text, got ${typeName(a)}`;
    const norm = (s: string) => {
      const t = s.normalize('NFKC').trim().replace(/\s+/g, ' ');
      return inh.casefold ? t.toLowerCase() : t;
    };
    return norm(e) === norm(String(a)) ? null : 'different value';
  }
  return JSON.stringify(e) === JSON.stringify(a) ? null : 'different value';
}

/** Multiset equality: each expected item matched to a distinct actual item (backtracking; lists are short). */
function setEqual(e: unknown[], a: unknown[], child: string, rules: Record<string, ArgRule>, inh: Inherited): boolean {
  const ok: boolean[][] = e.map((ev) => a.map((av) => compareValue(ev, av, child, rules, inh) === null));
  const used = new Array<boolean>(a.length).fill(false);
  const go = (i: number): boolean => {
    if (i === e.length) return true;
    for (let j = 0; j < a.length; j++) {
      if (used[j] || !ok[i]![j]) continue;
      used[j] = true;
      if (go(i + 1)) return true;
      used[j] = false;
    }
    return false;
  };
  return go(0);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return typeof v;
}

// ---------------------------------------------------------------------------------------------------------
// Datetimes

interface Dt {
  y: number;
  mo: number;
  d: number;
  h: number | null;
  mi: number | null;
  s: number | null;
  /** minutes east of UTC; null when the value has no offset */
  offset: number | null;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

export function parseIsoDatetime(s: string): Dt | null {
  const m = ISO.exec(s.trim());
  if (!m) return null;
  const num = (x: string | undefined) => (x === undefined ? null : Number(x));
  let offset: number | null = null;
  const z = m[7];
  if (z) {
    if (z.toUpperCase() === 'Z') offset = 0;
    else {
      const sign = z[0] === '-' ? -1 : 1;
      const digits = z.slice(1).replace(':', '');
      offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
    }
  }
  const dt: Dt = {
    y: Number(m[1]),
    mo: Number(m[2]),
    d: Number(m[3]),
    h: num(m[4]),
    mi: num(m[5]),
    s: num(m[6]),
    offset,
  };
  if (dt.mo < 1 || dt.mo > 12 || dt.d < 1 || dt.d > 31 || (dt.h ?? 0) > 23 || (dt.mi ?? 0) > 59 || (dt.s ?? 0) > 60)
    return null;
  return dt;
}

/** Minutes (or seconds) since the epoch of the wall clock as written, optionally shifted to UTC. */
function stamp(dt: Dt, precision: 'minute' | 'second', toUtc: boolean): number {
  const ms = Date.UTC(dt.y, dt.mo - 1, dt.d, dt.h ?? 0, dt.mi ?? 0, precision === 'second' ? (dt.s ?? 0) : 0);
  return ms / 1000 - (toUtc && dt.offset !== null ? dt.offset * 60 : 0);
}

function compareDatetime(
  e: unknown,
  a: unknown,
  precision: 'day' | 'minute' | 'second',
  timezone: 'required' | 'ignore',
): string | null {
  if (typeof a !== 'string')
    return `expected an ISO 8601 ${precision === 'day' ? 'date' : 'datetime'}, got ${typeName(a)}`;
  const ed = typeof e === 'string' ? parseIsoDatetime(e) : null;
  const ad = parseIsoDatetime(a);
  if (!ed) return 'the expected value is not ISO 8601';
  if (!ad) return `"${a}" is not ISO 8601`;
  if (precision === 'day') return ed.y === ad.y && ed.mo === ad.mo && ed.d === ad.d ? null : 'different date';
  if (ad.h === null) return 'no time of day';
  if (timezone === 'required' && ad.offset === null) return 'no timezone offset';
  // Same instant when both carry offsets; otherwise the wall clock as written.
  const both = ed.offset !== null && ad.offset !== null;
  return stamp(ed, precision, both) === stamp(ad, precision, both)
    ? null
    : both
      ? 'a different instant'
      : 'a different time';
}

// ---------------------------------------------------------------------------------------------------------
// Fuzzy text

const STOP = new Set([
  'a',
  'an',
  'the',
  'to',
  'for',
  'of',
  'please',
  'my',
  'me',
  'about',
  'on',
  'in',
  'at',
  'and',
  'is',
  'it',
  'that',
  'this',
  'with',
  'by',
  'i',
  'you',
  'your',
  'saying',
  'say',
]);

export function textTokens(s: string): string[] {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .split(/\s+/)
    .filter((t) => t !== '' && !STOP.has(t));
}

/**
 * Free text that says the same thing, deterministically: equal after normalisation, or token Jaccard ≥ 0.5, or
 * every expected token present in a reply not much longer. Not semantic similarity — a documented stand-in.
 */
export function fuzzyEqual(expected: string, actual: string): boolean {
  const te = new Set(textTokens(expected));
  const ta = new Set(textTokens(actual));
  if (te.size === 0 || ta.size === 0) return expected.trim().toLowerCase() === actual.trim().toLowerCase();
  let inter = 0;
  for (const t of te) if (ta.has(t)) inter++;
  const union = te.size + ta.size - inter;
  return inter / union >= 0.5 || (inter === te.size && ta.size <= 2 * te.size + 2);
}
