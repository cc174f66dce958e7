import type { CaseRow, CaseStatus } from '../model.ts';

/**
 * The case ledger's logic, without the DOM (unit-tested in Node, run in the page): the rows of every run joined by
 * case key, and the search, filters and sort the page applies to them.
 */

export interface Entry {
  key: string;
  id: string;
  /** One cell per run (null: the run has no such case). */
  cells: Array<CaseRow | null>;
  /** The case's outcome or answer differs between runs (or one run lacks it). */
  changed: boolean;
  /** Lower-cased id, tags, causes, reasons and answers: what the search box matches. */
  haystack: string;
  order: number;
  tags: string[];
  causes: string[];
}

export interface Query {
  text: string;
  /** all; failed (some run failed or erred); error (some run erred); pass (every run passed). */
  status: 'all' | 'failed' | 'error' | 'pass';
  tag: string;
  cause: string;
  changedOnly: boolean;
  sort: 'order' | 'id' | 'status' | 'changed';
}

export const EMPTY_QUERY: Query = { text: '', status: 'all', tag: '', cause: '', changedOnly: false, sort: 'order' };

/** Whether a case reads differently in two runs: its status, or its answer where both have one. */
export function changedAcross(cells: ReadonlyArray<CaseRow | null>): boolean {
  if (cells.length < 2) return false;
  if (cells.some((c) => !c)) return true;
  const [first, ...rest] = cells as CaseRow[];
  return rest.some(
    (c) =>
      c.status !== first!.status ||
      (c.predicted !== null && first!.predicted !== null && c.predicted !== first!.predicted),
  );
}

/** Every case of every run, one entry per key, in the first run's order (cases only in later runs after). */
export function joinRuns(runs: ReadonlyArray<ReadonlyArray<CaseRow>>): Entry[] {
  const byKey = new Map<string, Entry>();
  let next = 0;
  runs.forEach((rows, r) => {
    for (const row of rows) {
      let e = byKey.get(row.key);
      if (!e) {
        e = {
          key: row.key,
          id: row.id,
          cells: runs.map(() => null),
          changed: false,
          haystack: '',
          order: next++,
          tags: [],
          causes: [],
        };
        byKey.set(row.key, e);
      }
      e.cells[r] = row;
    }
  });
  const entries = [...byKey.values()];
  for (const e of entries) {
    const present = e.cells.filter((c): c is CaseRow => !!c);
    e.tags = [...new Set(present.flatMap((c) => c.tags))];
    e.causes = [...new Set(present.map((c) => c.cause).filter((c): c is string => !!c))];
    e.changed = changedAcross(e.cells);
    e.haystack = [
      e.id,
      ...e.tags,
      ...e.causes,
      ...present.map((c) => c.reason ?? ''),
      ...present.map((c) => c.predicted ?? ''),
    ]
      .join('\u0000')
      .toLowerCase();
  }
  return entries;
}

/**
 * A ledger row's reasons: with one run its reason alone; with several, each run's reason labelled with the run it
 * belongs to (runs without a reason are left out), so a reason is never read as another run's.
 */
export function rowReasons(
  cells: ReadonlyArray<CaseRow | null>,
  labels: readonly string[],
): Array<{ run: string | null; reason: string }> {
  if (cells.length < 2) return cells[0]?.reason ? [{ run: null, reason: cells[0].reason }] : [];
  return cells.flatMap((c, r) => (c?.reason ? [{ run: labels[r] ?? `run ${r + 1}`, reason: c.reason }] : []));
}

const RANK: Record<CaseStatus, number> = { error: 0, fail: 1, pass: 2 };

function worst(e: Entry): number {
  return Math.min(...e.cells.map((c) => (c ? RANK[c.status] : 3)));
}

export function matches(e: Entry, q: Query, needle = q.text.trim().toLowerCase()): boolean {
  if (needle && !e.haystack.includes(needle)) return false;
  if (q.changedOnly && !e.changed) return false;
  if (q.tag && !e.tags.includes(q.tag)) return false;
  if (q.cause && !e.causes.includes(q.cause)) return false;
  switch (q.status) {
    case 'failed':
      return e.cells.some((c) => c && c.status !== 'pass');
    case 'error':
      return e.cells.some((c) => c?.status === 'error');
    case 'pass':
      return e.cells.every((c) => !c || c.status === 'pass');
    default:
      return true;
  }
}

const byId = (a: Entry, b: Entry) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) || a.order - b.order;

/** The entries the query keeps, sorted as it asks (a new array; the input is left as it is). */
export function applyQuery(entries: readonly Entry[], q: Query): Entry[] {
  const needle = q.text.trim().toLowerCase();
  const kept = entries.filter((e) => matches(e, q, needle));
  switch (q.sort) {
    case 'id':
      return kept.sort(byId);
    case 'status':
      return kept.sort((a, b) => worst(a) - worst(b) || a.order - b.order);
    case 'changed':
      return kept.sort((a, b) => Number(b.changed) - Number(a.changed) || a.order - b.order);
    default:
      return kept.sort((a, b) => a.order - b.order);
  }
}

/** The values of the tag and cause filters, with how many cases carry each. */
export function facets(entries: readonly Entry[]): { tags: Array<[string, number]>; causes: Array<[string, number]> } {
  const tags = new Map<string, number>();
  const causes = new Map<string, number>();
  for (const e of entries) {
    for (const t of e.tags) tags.set(t, (tags.get(t) ?? 0) + 1);
    for (const c of e.causes) causes.set(c, (causes.get(c) ?? 0) + 1);
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return { tags: sorted(tags), causes: sorted(causes) };
}

/** The ledger's state in the address's fragment (`#case=…&q=…`), so a view can be linked and reloaded. */
export function encodeHash(q: Query, caseKey: string | null): string {
  const p = new URLSearchParams();
  if (caseKey) p.set('case', caseKey);
  if (q.text) p.set('q', q.text);
  if (q.status !== 'all') p.set('status', q.status);
  if (q.tag) p.set('tag', q.tag);
  if (q.cause) p.set('cause', q.cause);
  if (q.changedOnly) p.set('changed', '1');
  if (q.sort !== 'order') p.set('sort', q.sort);
  return p.toString();
}

export function decodeHash(hash: string): { query: Query; caseKey: string | null } {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const status = p.get('status');
  const sort = p.get('sort');
  return {
    query: {
      text: p.get('q') ?? '',
      status: status === 'failed' || status === 'error' || status === 'pass' ? status : 'all',
      tag: p.get('tag') ?? '',
      cause: p.get('cause') ?? '',
      changedOnly: p.get('changed') === '1',
      sort: sort === 'id' || sort === 'status' || sort === 'changed' ? sort : 'order',
    },
    caseKey: p.get('case'),
  };
}
