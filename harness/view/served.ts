import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { firstZodIssue } from '../core/errors.ts';
import { viewHtml } from './html.ts';
import { type LoadedView, loadView, type ViewOptions } from './load-view.ts';
import { type CaseLocation, type CaseReader, caseReader, runDirs } from './load.ts';
import { runsVersion } from './history.ts';
import { lstatOrNull } from '../core/nofollow.ts';
import { JOURNAL } from '../kit/journal.ts';
import { join } from 'node:path';
import type { CaseDetail, CaseRow } from './model.ts';
import { encodeRows, type IndexPage } from './page/compact-rows.ts';
import { pageScript } from './page-script.ts';
import { rewritePaths } from './relative-paths.ts';
import type { Summary } from '../report/summary.ts';

/**
 * The served viewer's paged mode. The page holds each run's header, metrics and charts; its ledger rows come from
 * `/index` a page at a time (compact columns, page/compact-rows.ts), and a case's detail from `/case` when it is
 * opened, read again from the run folder by the offsets found when the runs were loaded (load.ts readCase). The
 * server holds the rows and those offsets, never the details. Both endpoints take zod-checked queries and answer
 * JSON; the server (server.ts) answers only on its loopback address.
 */

/** Rows per `/index` page the page asks for; the most a request may ask is MAX_INDEX_PAGE. */
export const INDEX_PAGE_ROWS = 20_000;
export const MAX_INDEX_PAGE = 50_000;

const int = z.coerce.number().int().min(0);
const build = z.string().regex(/^[0-9a-f]{1,64}$/, 'not a page build id');
const IndexQuery = z.strictObject({ build, run: int, from: int, count: int.min(1).max(MAX_INDEX_PAGE) });
const CaseQuery = z.strictObject({ build, run: int, key: z.string().min(1).max(4096) });

/** A key that reads like a path leaving a folder (`..` as a segment), or holds NUL or a control character. */
function pathLike(key: string): boolean {
  return /(^|[\\/])\.\.([\\/]|#|$)|^[\\/]/.test(key) || [...key].some((c) => c.charCodeAt(0) < 0x20);
}

export interface ApiAnswer {
  status: number;
  json: unknown;
}

const refusal = (status: number, error: string): ApiAnswer => ({ status, json: { error } });

function parseQuery<T>(schema: z.ZodType<T>, query: URLSearchParams, what: string): T | ApiAnswer {
  const r = schema.safeParse(Object.fromEntries(query));
  if (r.success) return r.data;
  const { field, message } = firstZodIssue(r.error);
  return refusal(400, `${what}: ${field ? `${field}: ` : ''}${message}`);
}

/** One built page's rows and where its cases are: what `/index` and `/case` answer from. */
export class CaseStore {
  constructor(
    readonly build: string,
    private readonly runs: ReadonlyArray<{
      dir: string;
      summary: Summary | null;
      rows: CaseRow[];
      locations: Map<string, CaseLocation>;
      /** Details the loader could not place in the journal (an unreadable line's case): held, few. */
      held: Map<string, CaseDetail>;
    }>,
    private readonly rewrites: Array<[string, string]>,
    /** Keep each run's files open between cases (caseReader's `keepOpen`) until `close`. */
    private readonly keepOpen = false,
  ) {}

  /** Each run's reader, made when its first case is read. */
  private readonly readers = new Map<number, CaseReader>();

  get totals(): number[] {
    return this.runs.map((r) => r.rows.length);
  }

  /** Rows [from, from + count) of run `run`, compact; null for no such run. */
  page(run: number, from: number, count: number): IndexPage | null {
    const r = this.runs[run];
    if (!r) return null;
    return { run, from, total: r.rows.length, rows: encodeRows(r.rows.slice(from, from + count)) };
  }

  /** A case's detail, read from its run folder now; null for no such case (or a line that changed since). */
  detail(run: number, key: string): CaseDetail | null {
    const r = this.runs[run];
    if (!r) return null;
    const held = r.held.get(key);
    if (held) return held;
    const loc = r.locations.get(key);
    if (!loc) return null;
    let read = this.readers.get(run);
    if (!read) this.readers.set(run, (read = caseReader(r.dir, r.summary, { keepOpen: this.keepOpen })));
    const got = read.read(key, loc);
    return got ? rewritePaths(got.detail, this.rewrites) : null;
  }

  /** Close the files the readers keep open. */
  close(): void {
    for (const r of this.readers.values()) r.close();
    this.readers.clear();
  }

  /** `/index` and `/case`: their answer, or null for another path. */
  answer(path: string, query: URLSearchParams): ApiAnswer | null {
    if (path === '/index') {
      const q = parseQuery(IndexQuery, query, '/index');
      if ('status' in q) return q;
      const page = this.page(q.run, q.from, q.count);
      return page ? { status: 200, json: page } : refusal(404, `/index: no run ${q.run} on this page`);
    }
    if (path === '/case') {
      const q = parseQuery(CaseQuery, query, '/case');
      if ('status' in q) return q;
      // Only keys the index lists are looked up, never a file named by them: a path-shaped key is refused outright.
      if (pathLike(q.key))
        return refusal(400, `/case: key: refused: a case key is an id#trial from the index, not a path`);
      const d = this.detail(q.run, q.key);
      return d
        ? { status: 200, json: d }
        : refusal(404, `/case: no case ${JSON.stringify(q.key)} in run ${q.run} of this page`);
    }
    return null;
  }
}

/**
 * What a page shows depends on: the runs' summaries and kept runs (runsVersion), each journal's size and time (a run
 * still writing) and the kept runs opened.
 */
function runsFingerprint(paths: readonly string[], open: readonly string[]): string {
  const dirs = runDirs(paths);
  const journals = dirs.map((d) => {
    const st = lstatOrNull(join(d, JOURNAL));
    return st ? `${st.size}:${st.mtimeMs}` : '-';
  });
  return JSON.stringify([runsVersion(dirs), journals, open]);
}

/** The store of a view loaded with rows only (loadView's `rowsOnly`): its rows, and where to read each case again. */
export function caseStoreOf(v: LoadedView, id: string, keepOpen = false): CaseStore {
  return new CaseStore(
    id,
    v.data.runs.map((run, r) => {
      const held = new Map<string, CaseDetail>();
      for (const row of run.rows) {
        const d = v.details[r]![row.detail]!;
        if (!v.runs[r]!.locations.has(row.key)) held.set(row.key, d);
      }
      return {
        dir: v.runs[r]!.dir,
        summary: v.runs[r]!.summary,
        rows: run.rows,
        locations: v.runs[r]!.locations,
        held,
      };
    }),
    v.rewrites,
    keepOpen,
  );
}

/** The paged page over the given paths, and its store. */
export async function buildServedPage(
  paths: readonly string[],
  o: ViewOptions & { pageSize?: number } = {},
): Promise<{ html: string; store: CaseStore; runs: number; cases: number; problems: number }> {
  const v = loadView(paths, { ...o, served: o.served ?? { open: [] } }, true);
  const id = randomBytes(8).toString('hex');
  const store = caseStoreOf(v, id);
  const cases = v.data.runs.reduce((n, r) => n + r.rows.length, 0);
  const data = {
    ...v.data,
    runs: v.data.runs.map((r) => ({ ...r, rows: [] })),
    paged: { build: id, totals: store.totals, pageSize: o.pageSize ?? INDEX_PAGE_ROWS },
  };
  return {
    html: viewHtml(data, await pageScript()),
    store,
    runs: data.runs.length,
    cases,
    problems: data.runs.reduce((n, r) => n + r.problems.length, 0),
  };
}

/**
 * The served viewer's pages: each load builds the page again (a run still writing shows its new cases) and keeps its
 * store, the last few of them, so a page open in another tab still opens its cases; an older build's requests get a
 * 409 that asks for a reload.
 */
export class ServedViews {
  private stores: CaseStore[] = [];
  constructor(
    private readonly paths: readonly string[],
    private readonly o: ViewOptions & { pageSize?: number } = {},
    private readonly keep = 4,
  ) {}

  private last: { fingerprint: string; built: Awaited<ReturnType<typeof buildServedPage>> } | null = null;

  /** The page for `open`: built again only when a run changed since the last build (reading 10^5 cases takes long). */
  async build(open: readonly string[] = []): Promise<Awaited<ReturnType<typeof buildServedPage>>> {
    const fingerprint = runsFingerprint(this.paths, open);
    if (this.last?.fingerprint === fingerprint) return this.last.built;
    const built = await buildServedPage(this.paths, { ...this.o, served: { open } });
    this.stores = [built.store, ...this.stores].slice(0, this.keep);
    this.last = { fingerprint, built };
    return built;
  }

  answer(path: string, query: URLSearchParams): ApiAnswer | null {
    if (path !== '/index' && path !== '/case') return null;
    const b = query.get('build');
    const store = this.stores.find((s) => s.build === b);
    if (store) return store.answer(path, query);
    const checked = build.safeParse(b);
    return checked.success
      ? refusal(409, `${path}: this page's build is gone (the runs were read again): reload the page`)
      : refusal(400, `${path}: build: ${checked.error.issues[0]!.message}`);
  }
}
