import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/cli.ts';
import { writeRun } from '../../tests/helpers/view-bench-runs.ts';
import { loadView } from './load-view.ts';
import type { CaseDetail, ViewData } from './model.ts';
import { decodeRows, type IndexPage } from './page/compact-rows.ts';
import { serveView, type ViewServer } from './server.ts';
import { ServedViews } from './served.ts';

// The served viewer's paged mode over real HTTP: the ledger's rows a page at a time from /index, a case's detail from
// /case, read from the run folder when asked. The oracle is the loader's whole mode (loadView without `rowsOnly`),
// which maps every case's detail on its first read of the runs: the paged server must give the same.

const N = 35;
const root = tempDir('view-served');
const [a, b] = [join(root, 'a'), join(root, 'b')];
let views: ServedViews;
let server: ViewServer;
let build: string;
let whole: { data: ViewData; blocks: Map<string, string> };

/** Every row and detail as the loader maps them on its first read, the details by `d<run>-<n>` id. */
function wholeView(paths: string[]): { data: ViewData; blocks: Map<string, string> } {
  const v = loadView(paths);
  const blocks = new Map<string, string>();
  v.details.forEach((ds, r) => ds.forEach((d, i) => blocks.set(`d${r}-${i}`, JSON.stringify(d))));
  return { data: v.data, blocks };
}

/** A page's data and its case blocks by `d<run>-<n>` id. */
function parsePage(html: string): { data: ViewData; blocks: Map<string, string> } {
  const data = JSON.parse(/<script type="application\/json" id="tg-data">(.*?)<\/script>/s.exec(html)![1]!) as ViewData;
  const blocks = new Map<string, string>();
  for (const m of html.matchAll(/<script type="application\/json" id="(d\d+-\d+)">(.*?)<\/script>/gs))
    blocks.set(m[1]!, m[2]!);
  return { data, blocks };
}

function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  writeRun(a, 'sim:a', N, (i) => i % 10 === 3);
  writeRun(b, 'sim:b', N, (i) => i % 10 === 3 || i % 7 === 5);
  views = new ServedViews([a, b], { pageSize: 10 });
  const page = await views.build();
  build = (parsePage(page.html).data.paged ?? { build: '' }).build;
  server = await serveView(async () => page.html, { api: (p, q) => views.answer(p, q) });
  whole = wholeView([a, b]);
});
afterAll(() => server?.close());

describe('toolgauge view, served: paged ledger, cases on demand', () => {
  it('the page holds no rows and no case; /index pages through every row, as the whole page lists them', async () => {
    const page = parsePage((await views.build()).html);
    expect(page.blocks.size).toBe(0);
    expect(page.data.runs.map((r) => r.rows.length)).toEqual([0, 0]);
    expect(page.data.paged).toMatchObject({ totals: [N, N], pageSize: 10 });
    for (const run of [0, 1]) {
      const rows = [];
      for (let from = 0; from < N; from += 10) {
        const r = await get(`/index?build=${build}&run=${run}&from=${from}&count=10`);
        expect(r.status).toBe(200);
        const p = JSON.parse(r.body) as IndexPage;
        expect([p.run, p.from, p.total, p.rows.k.length]).toEqual([run, from, N, Math.min(10, N - from)]);
        rows.push(...decodeRows(p.rows, p.from));
      }
      const strip = (x: {
        key: string;
        status: string;
        reason: string | null;
        tags: string[];
        predicted: string | null;
      }) => [x.key, x.status, x.reason, x.tags, x.predicted] as const;
      expect(rows.map(strip)).toEqual(whole.data.runs[run]!.rows.map(strip));
    }
    expect(JSON.parse((await get(`/index?build=${build}&run=0&from=40&count=10`)).body).rows.k).toEqual([]);
  });

  it('a case fetched on demand is what the loader maps on its first read', async () => {
    for (const run of [0, 1])
      for (const row of whole.data.runs[run]!.rows.filter((_, i) => i % 6 === 3)) {
        const r = await get(`/case?build=${build}&run=${run}&key=${encodeURIComponent(row.key)}`);
        expect(r.status, row.key).toBe(200);
        expect(JSON.parse(r.body) as CaseDetail).toEqual(JSON.parse(whole.blocks.get(`d${run}-${row.detail}`)!));
      }
  });

  it('refuses a bad query, an unknown case (404), a path for a key and a gone build, each in one line', async () => {
    const err = async (path: string) => {
      const r = await get(path);
      return [r.status, (JSON.parse(r.body) as { error: string }).error];
    };
    expect(await err(`/case?build=${build}&run=0&key=case-99%230`)).toEqual([
      404,
      '/case: no case "case-99#0" in run 0 of this page',
    ]);
    expect((await err(`/case?build=${build}&run=5&key=case-1%230`))[0]).toBe(404);
    for (const key of ['../../../etc/passwd#0', '../summary.json', '/etc/passwd', 'traces/../../x#0'])
      expect(await err(`/case?build=${build}&run=0&key=${encodeURIComponent(key)}`)).toEqual([
        400,
        '/case: key: refused: a case key is an id#trial from the index, not a path',
      ]);
    expect(await err(`/index?build=${build}&run=0&from=0&count=0`)).toEqual([
      400,
      '/index: count: Too small: expected number to be >=1',
    ]);
    expect((await err(`/index?build=${build}&run=0&from=0&count=5&file=x`))[0]).toBe(400);
    expect((await err(`/index?build=${build}&run=x&from=0&count=5`))[0]).toBe(400);
    expect((await err(`/index?build=${'f'.repeat(16)}&run=0&from=0&count=5`))[0]).toBe(409);
    expect((await err(`/index?build=..&run=0&from=0&count=5`))[0]).toBe(400);
  });
});
