import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/cli.ts';
import { exportedPage } from '../../tests/helpers/exported-page.ts';
import { writeRun } from '../../tests/helpers/view-bench-runs.ts';
import { exportReport } from './export.ts';
import { loadView } from './load-view.ts';
import type { ViewData } from './model.ts';

// `toolgauge view --export`: the page within its budget, ledger included. The oracles are the run folders' own
// journals (the cases, their ledger order) and the loader's whole mode (each case's detail mapped on the first read).

const N = 30;
const root = tempDir('view-export-test');
const [a, b] = [join(root, 'a'), join(root, 'b')];

/** A run's case ids in ledger order, read from its journal: sorted by `order` (writeRun's lines may be any order). */
function ledgerIds(dir: string): string[] {
  return readFileSync(join(dir, 'instances.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id: string; order: number })
    .sort((x, y) => x.order - y.order)
    .map((m) => m.id);
}

/**
 * The page checked as HTML: the fixed skeleton, every script element closed where it should be, the data and case
 * blocks parsed as JSON. Returns the data and the case blocks by id.
 */
function parseChecked(html: string): { data: ViewData; blocks: Map<string, unknown> } {
  expect(html.startsWith('<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n')).toBe(true);
  expect(html.endsWith('</body></html>\n')).toBe(true);
  // No JSON block holds a `<`: its text cannot end early, nor open a comment or another element. The page's own
  // script holds no `</script` (html.ts refuses one).
  const json = [...html.matchAll(/<script type="application\/json" id="([^"]+)">([^<]*)<\/script>\n/g)];
  const own = [...html.matchAll(/<script>((?:(?!<\/script)[\s\S])*)<\/script>\n/g)];
  expect(own).toHaveLength(1);
  expect(html.split('<script').length - 1).toBe(json.length + own.length);
  const rest = html
    .replace(/<script type="application\/json" id="[^"]+">[^<]*<\/script>\n/g, '')
    .replace(own[0]![0], '')
    .replace(/<style>[^<]*<\/style>/, '<style></style>');
  expect(rest).toMatch(
    /^<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="[^"<>]*">\n<meta name="viewport" content="[^"<>]*">\n<title>[^<]*<\/title>\n<style><\/style>\n<\/head><body>\n<div id="app"><p>Loading…<\/p><\/div>\n<\/body><\/html>\n$/,
  );
  const data = JSON.parse(json.find((m) => m[1] === 'tg-data')![2]!) as ViewData;
  const blocks = new Map(json.filter((m) => m[1] !== 'tg-data').map((m) => [m[1]!, JSON.parse(m[2]!) as unknown]));
  return { data, blocks };
}

let whole: Awaited<ReturnType<typeof exportedPage>>;
beforeAll(async () => {
  writeRun(a, 'sim:a', N, (i) => i % 10 === 3);
  writeRun(b, 'sim:b', N, (i) => i % 7 === 5);
  whole = await exportedPage([a, b]);
});

describe('toolgauge view --export: the page within its budget', () => {
  it('below the budget: every case of the ledger, each with its detail as the loader maps it', () => {
    const { data, blocks } = parseChecked(whole.html);
    expect(data.leftOut).toBeUndefined();
    expect([whole.cases, whole.kept]).toEqual([2 * N, 2 * N]);
    const oracle = loadView([a, b]);
    for (const [r, dir] of [a, b].entries()) {
      expect(data.runs[r]!.rows.map((x) => x.id)).toEqual(ledgerIds(dir));
      for (const row of data.runs[r]!.rows)
        expect(blocks.get(`d${r}-${row.detail}`)).toEqual(oracle.details[r]![row.detail]);
    }
    expect(blocks.size).toBe(2 * N);
  });

  it('over it: the first cases of the ledger, their rows and details only, and what it left out said', async () => {
    // a budget that holds about half of the cases (the page's other parts are small beside 60 cases)
    const budget = Math.round(whole.bytes * 0.55);
    const over = await exportedPage([a, b], { budget });
    expect(over.bytes).toBe(Buffer.byteLength(over.html));
    expect(over.bytes).toBeLessThanOrEqual(budget);
    const { data, blocks } = parseChecked(over.html);
    const kept = data.runs[0]!.rows.length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(N);
    for (const [r, dir] of [a, b].entries()) {
      // both runs' rows of a position together: the first `kept` of each run's ledger, and their details
      expect(data.runs[r]!.rows.map((x) => x.id)).toEqual(ledgerIds(dir).slice(0, kept));
      for (const row of data.runs[r]!.rows) expect(blocks.has(`d${r}-${row.detail}`)).toBe(true);
      expect(data.runs[r]!.problems.map((p) => p.message)).toContainEqual(
        expect.stringMatching(new RegExp(`^${N - kept} of its ${N} cases are left out of this page`)),
      );
    }
    expect(blocks.size).toBe(2 * kept);
    const total = ledgerIds(a).length + ledgerIds(b).length;
    expect(data.leftOut).toEqual({ cases: total - 2 * kept, of: total, budgetBytes: budget });
    expect([over.cases, over.kept]).toEqual([total, 2 * kept]);
    // the CLI's lines: how many were left out and how to see them
    expect(exportReport(over, [a, b])).toEqual([
      expect.stringMatching(/^written: .*view\.html \(2 runs, 60 cases, 2 problems shown in the page; [\d.]+ MiB\)$/),
      `left out: ${total - 2 * kept} of the ${total} cases (the page holds the first ${2 * kept} of the ledger: an exported page holds at most ${budget} bytes); to see every case, serve the runs: toolgauge view ${a} ${b}`,
    ]);
  });

  it('a budget smaller than the page without its cases: no case, and every one counted as left out', async () => {
    const none = await exportedPage([a], { budget: 1000 });
    const { data, blocks } = parseChecked(none.html);
    expect(data.runs[0]!.rows).toEqual([]);
    expect(blocks.size).toBe(0);
    expect(data.leftOut).toEqual({ cases: N, of: ledgerIds(a).length, budgetBytes: 1000 });
  });
});
