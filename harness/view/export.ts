import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLinesAtomic } from '../core/jsonl.ts';
import { redact } from '../core/redact.ts';
import { caseBlock, pageFrame, scriptJson } from './html.ts';
import { loadView, type ViewOptions } from './load-view.ts';
import { noticeDetail, type CaseDetail, type CaseRow, type ViewData } from './model.ts';
import { pageScript } from './page-script.ts';
import { caseStoreOf, type CaseStore } from './served.ts';

/**
 * `toolgauge view --export FILE`: the page as one file, written as it is read. The runs are read as the served viewer
 * reads them (rows and where each case is, no detail held); then the cases are taken in ledger order, each run's row
 * of one position together, each case read again from its run folder, and kept while the page stays within its
 * budget. The kept cases' detail blocks go to a scratch file as they are made; the page is then written from it
 * (head, data with the kept rows, script, the blocks), so neither the page nor its details are ever held whole.
 */

/**
 * The most bytes an exported page holds, ledger and case details included. A page of 2 × 10^4 bench cases is 37 MiB
 * and draws its ledger in under a second (docs/benchmarks.md, `npm run bench:view`); 64 MiB keeps an export near
 * that size. Past it, the page keeps the first cases of the ledger and says how many it left out.
 */
export const EXPORT_PAGE_BUDGET_BYTES = 64 * 1024 * 1024;

export interface ExportedPage {
  file: string;
  /** The most bytes the page could hold. */
  budget: number;
  runs: number;
  /** Rows over every run (a case of two runs counts twice), and those of them in the page. */
  cases: number;
  kept: number;
  bytes: number;
  problems: number;
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** The problem a run shows when the page left some of its cases out. */
export function leftOutProblem(dir: string, n: number, of: number, budget: number) {
  return {
    file: dir,
    message: `${n} of its ${of} cases are left out of this page (an exported page holds at most ${budget} bytes, the first cases of the ledger): serve the runs (toolgauge view DIR) to see them`,
  };
}

/** What a case shows when its folder changed between the two reads of the export. */
const unreadable = (key: string): CaseDetail =>
  noticeDetail(
    key,
    'Unreadable',
    'This case could not be read again from its run folder while the page was written (the run changed).',
  );

/** The page's data with `kept` rows of each run, what it left out, and each run's rows replaced by a marker. */
function pageData(data: ViewData, kept: number, budget: number, marker: (r: number) => string): ViewData {
  const total = data.runs.reduce((n, r) => n + r.rows.length, 0);
  const inPage = data.runs.reduce((n, r) => n + Math.min(kept, r.rows.length), 0);
  return {
    ...data,
    runs: data.runs.map((run, r) => ({
      ...run,
      rows: marker(r) as unknown as CaseRow[],
      problems:
        run.rows.length > kept
          ? [...run.problems, leftOutProblem(run.dir, run.rows.length - kept, run.rows.length, budget)]
          : run.problems,
    })),
    ...(inPage < total ? { leftOut: { cases: total - inPage, of: total, budgetBytes: budget } } : {}),
  };
}

/** The data block's JSON around the rows: the parts between the runs' markers (one each, in order). */
function splitAtMarkers(json: string, markers: string[]): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const m of markers) {
    const quoted = JSON.stringify(m);
    const at = json.indexOf(quoted, from);
    if (at < 0 || json.indexOf(quoted, at + 1) >= 0)
      throw new Error(`the page data holds its row marker ${m} not once`);
    parts.push(json.slice(from, at));
    from = at + quoted.length;
  }
  parts.push(json.slice(from));
  return parts;
}

/** Each case block in ledger order, read from the runs, until the next position would not fit in `room` bytes. */
function keptBlocks(
  data: ViewData,
  store: CaseStore,
  room: number,
  scratch: number,
): { kept: number; blockBytes: number[] } {
  const longest = Math.max(0, ...data.runs.map((r) => r.rows.length));
  const blockBytes: number[] = [];
  let used = 0;
  for (let i = 0; i < longest; i++) {
    const blocks: string[] = [];
    let cost = 0;
    data.runs.forEach((run, r) => {
      const row = run.rows[i];
      if (!row) return;
      const block = redact(caseBlock(r, row.detail, scriptJson(store.detail(r, row.key) ?? unreadable(row.key))));
      blocks.push(block);
      cost += bytes(block) + bytes(redact(scriptJson(row))) + 1; // the row in the data block, and its comma
    });
    if (used + cost > room) return { kept: i, blockBytes };
    used += cost;
    for (const b of blocks) {
      const buf = Buffer.from(b, 'utf8');
      for (let at = 0; at < buf.length; ) at += writeSync(scratch, buf, at, buf.length - at);
      blockBytes.push(buf.length);
    }
  }
  return { kept: longest, blockBytes };
}

/** The blocks written to the scratch file, read back one at a time. */
function* readBlocks(scratch: number, blockBytes: number[]): Generator<string> {
  let pos = 0;
  for (const n of blockBytes) {
    const buf = Buffer.allocUnsafe(n);
    for (let at = 0; at < n; ) {
      const got = readSync(scratch, buf, at, n - at, pos + at);
      if (!got) throw new Error('the export scratch file ended early');
      at += got;
    }
    pos += n;
    yield buf.toString('utf8');
  }
}

/**
 * Write the page over the given paths to `file` (atomically: only a regular file is replaced), at most `budget`
 * bytes of it unless the page's own parts (header, metrics, charts, problems) alone are more.
 */
export async function exportViewPage(
  paths: readonly string[],
  file: string,
  o: ViewOptions & { budget?: number } = {},
): Promise<ExportedPage> {
  const budget = o.budget ?? EXPORT_PAGE_BUDGET_BYTES;
  const v = loadView(paths, o, true);
  const store = caseStoreOf(v, 'export', true);
  const script = await pageScript();
  // Each run's rows are streamed into the data block where its marker is: a string no run's data can guess.
  const nonce = randomBytes(8).toString('hex');
  const markers = v.data.runs.map((_, r) => `\u0000rows-${r}-${nonce}`);
  const frame = pageFrame(v.data, script);
  // The page without its rows and blocks, counted with every case left out: the largest its other parts can be.
  const bare = redact(scriptJson(pageData(v.data, 0, budget, (r) => markers[r]!)));
  const fixed = bytes(frame.start) + bytes(bare) + bytes(frame.script) + bytes(frame.end);
  const dir = mkdtempSync(join(tmpdir(), 'tg-export-'));
  try {
    const scratch = openSync(join(dir, 'blocks'), 'w+', 0o600);
    try {
      const { kept, blockBytes } = keptBlocks(v.data, store, budget - fixed, scratch);
      const data = pageData(v.data, kept, budget, (r) => markers[r]!);
      const parts = splitAtMarkers(scriptJson(data), markers);
      const page = function* (): Generator<string> {
        yield frame.start;
        for (let r = 0; r < data.runs.length; r++) {
          yield parts[r]!;
          const rows = v.data.runs[r]!.rows;
          yield '[';
          for (let i = 0; i < Math.min(kept, rows.length); i++) yield (i ? ',' : '') + scriptJson(rows[i]);
          yield ']';
        }
        yield parts[data.runs.length]!;
        yield frame.script;
        yield* readBlocks(scratch, blockBytes);
        yield frame.end;
      };
      writeLinesAtomic(file, page());
      const cases = v.data.runs.reduce((n, r) => n + r.rows.length, 0);
      return {
        file,
        budget,
        runs: data.runs.length,
        cases,
        kept: v.data.runs.reduce((n, r) => n + Math.min(kept, r.rows.length), 0),
        bytes: statSync(file).size,
        problems: data.runs.reduce((n, r) => n + r.problems.length, 0),
      };
    } finally {
      closeSync(scratch);
    }
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const counted = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`;

/** `2 runs, 60 cases, 1 problem shown in the page`: what `toolgauge view` says of a page. */
export function countsLine(p: { runs: number; cases: number; problems: number }): string {
  return `${counted(p.runs, 'run')}, ${counted(p.cases, 'case')}${p.problems ? `, ${counted(p.problems, 'problem')} shown in the page` : ''}`;
}

/** What `--export` says on stdout: the file written, and what the page left out and how to see it. */
export function exportReport(page: ExportedPage, paths: readonly string[]): string[] {
  const lines = [`written: ${page.file} (${countsLine(page)}; ${(page.bytes / 1048576).toFixed(1)} MiB)`];
  if (page.kept < page.cases)
    lines.push(
      `left out: ${page.cases - page.kept} of the ${page.cases} cases (the page holds the first ${page.kept} of the ledger: an exported page holds at most ${page.budget} bytes); to see every case, serve the runs: toolgauge view ${paths.join(' ')}`,
    );
  return lines;
}
