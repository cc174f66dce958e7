import type { CaseRow, CaseStatus } from '../model.ts';

/**
 * The served viewer's compact index: one page of a run's ledger rows as columns (the key, one status letter, the
 * reason, tag and cause numbers into the page's own lists, the answer), which is what the ledger, its search, its
 * filters and the "different only" comparison need. Pure and DOM-free: the server encodes (harness/view/served.ts),
 * the page decodes, and Node tests run both.
 *
 * A reason or answer longer than LABEL_CHARS is cut to its start plus a digest of the whole, so the index stays small
 * and two answers still compare equal only when the whole answers are equal (up to a 32-bit digest); the case's
 * detail, fetched when it is opened, holds them whole.
 */

export const LABEL_CHARS = 200;

export interface CompactRows {
  /** `id#trial` of each row. */
  k: string[];
  /** One letter per row: p(ass), f(ail), e(rror). */
  s: string;
  r: Array<string | null>;
  /** Each row's tags, as numbers into `tags`. */
  t: number[][];
  tags: string[];
  /** Each row's cause, as a number into `causes`, or -1. */
  c: number[];
  causes: string[];
  p: Array<string | null>;
}

export interface IndexPage {
  run: number;
  from: number;
  total: number;
  rows: CompactRows;
}

/** FNV-1a over the UTF-16 code units: a digest that is the same in Node and in the page. */
function digest(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** A label at most LABEL_CHARS (plus its digest) long. */
export function shortLabel(s: string | null): string | null {
  if (s === null || s.length <= LABEL_CHARS) return s;
  return `${s.slice(0, LABEL_CHARS)}… [${s.length} chars, #${digest(s)}]`;
}

const LETTER: Record<CaseStatus, string> = { pass: 'p', fail: 'f', error: 'e' };
const STATUS: Record<string, CaseStatus> = { p: 'pass', f: 'fail', e: 'error' };

export function encodeRows(rows: ReadonlyArray<Omit<CaseRow, 'detail'>>): CompactRows {
  const tags = new Map<string, number>();
  const causes = new Map<string, number>();
  const num = (m: Map<string, number>, v: string) => m.get(v) ?? m.set(v, m.size).get(v)!;
  return {
    k: rows.map((r) => r.key),
    s: rows.map((r) => LETTER[r.status]).join(''),
    r: rows.map((r) => shortLabel(r.reason)),
    t: rows.map((r) => r.tags.map((t) => num(tags, t))),
    tags: [...tags.keys()],
    c: rows.map((r) => (r.cause === null ? -1 : num(causes, r.cause))),
    causes: [...causes.keys()],
    p: rows.map((r) => shortLabel(r.predicted)),
  };
}

/** The rows of a page, as the ledger reads them (`detail` is the row's index in its run: the page fetches by key). */
export function decodeRows(c: CompactRows, from: number): CaseRow[] {
  return c.k.map((key, i) => {
    const hash = key.lastIndexOf('#');
    return {
      key,
      id: hash < 0 ? key : key.slice(0, hash),
      trial: hash < 0 ? 0 : Number(key.slice(hash + 1)),
      order: from + i,
      status: STATUS[c.s[i]!] ?? 'error',
      reason: c.r[i] ?? null,
      tags: (c.t[i] ?? []).map((n) => c.tags[n]!),
      cause: (c.c[i] ?? -1) < 0 ? null : c.causes[c.c[i]!]!,
      predicted: c.p[i] ?? null,
      detail: from + i,
    };
  });
}
