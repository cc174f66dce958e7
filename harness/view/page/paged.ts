import { noticeDetail, type CaseDetail, type CaseRow, type ViewData } from '../model.ts';
import { decodeRows, type IndexPage } from './compact-rows.ts';

/**
 * The served viewer's requests (harness/view/served.ts answers them, on the page's own address): the ledger's rows
 * from `/index` a page at a time, and a case's detail from `/case` when it is opened.
 */

type Paged = NonNullable<ViewData['paged']>;

async function getJson<T>(path: string, query: Record<string, string | number>): Promise<T> {
  const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string]));
  const res = await fetch(`${path}?${q}`);
  const body = (await res.json().catch(() => ({ error: `${res.status} ${res.statusText}` }))) as T & { error?: string };
  if (!res.ok) throw new Error(body.error ?? `${path}: ${res.status}`);
  return body;
}

/**
 * Every run's rows: the first page of each run, then (all at once) the rest. `update` gets every run's rows so far
 * after the first pages and again when every row is in (`done`).
 */
export async function loadIndex(
  paged: Paged,
  update: (rows: CaseRow[][], got: number, total: number, done: boolean) => void,
): Promise<void> {
  const total = paged.totals.reduce((a, b) => a + b, 0);
  const page = (run: number, from: number) =>
    getJson<IndexPage>('/index', { build: paged.build, run, from, count: paged.pageSize }).then((p) =>
      decodeRows(p.rows, p.from),
    );
  const firsts = await Promise.all(paged.totals.map((_, run) => page(run, 0)));
  const got = () => firsts.reduce((n, r) => n + r.length, 0);
  const more = paged.totals.some((t, r) => t > firsts[r]!.length);
  update(firsts, got(), total, !more);
  if (!more) return;
  const rest = await Promise.all(
    paged.totals.map(async (t, run) => {
      const froms: number[] = [];
      for (let from = paged.pageSize; from < t; from += paged.pageSize) froms.push(from);
      return (await Promise.all(froms.map((from) => page(run, from)))).flat();
    }),
  );
  const all = firsts.map((f, r) => f.concat(rest[r]!));
  update(all, total, total, true);
}

/** One run's side of a case, or a detail that says why it could not be read. */
export async function fetchCase(build: string, run: number, key: string): Promise<CaseDetail> {
  try {
    return await getJson<CaseDetail>('/case', { build, run, key });
  } catch (err) {
    return noticeDetail(key, 'Not loaded', (err as Error).message);
  }
}
