import { createHash } from 'node:crypto';
import type { CaseDetail, ViewData } from './model.ts';
import { PAGE_CSS } from './page-css.ts';

/**
 * The viewer as one self-contained HTML file: the data as JSON in `<script type="application/json">` blocks (never
 * executed; every `<`, `>`, `&` and line separator in them escaped, so no string from a run can close the block), the
 * page's script and style inline, and a Content-Security-Policy that allows only those two (by hash), images from
 * data: URLs and nothing from the network. The same file is served by `toolgauge view` and written by `--export`.
 */

/** JSON that is safe inside a `<script>` element: no `</script>`, no `<!--`, no U+2028/2029 surprises. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * The most characters the case blocks of an exported page hold. Measured (docs/benchmarks.md, `npm run bench:view`):
 * a page of 2 × 10^4 bench cases is 37 MiB and draws its ledger in under a second, the browser parsing the case
 * blocks after it; 64 Mi characters keeps an export near that size and far under what one string can hold (V8 caps
 * one near 512 million characters). Past it, a case's detail is left out: the case shows a note instead, and the page
 * says how many were left out and that the served viewer (`toolgauge view DIR`) shows every case.
 */
export const EXPORT_DETAIL_BUDGET_CHARS = 64 * 1024 * 1024;

/** What a case whose detail was left out shows instead. */
export function leftOutNote(budget: number): string {
  return `This case's detail is left out of this file: an exported page holds at most ${budget} characters of case details (the cases first in the ledger, each run's side by side). Serve the runs to see every case: toolgauge view DIR …`;
}

function leftOut(d: CaseDetail, budget: number): CaseDetail {
  return {
    key: d.key,
    input: null,
    expected: null,
    predicted: null,
    scorers: [],
    sections: [{ kind: 'text', title: 'Left out', text: leftOutNote(budget) }],
  };
}

/**
 * Each case's block, within the page's budget: the cases in ledger order, the runs' rows of one position one after
 * the other (a case is kept with its other runs' sides). What is left out is counted in `data.leftOut` and, per run,
 * in its problems.
 */
function caseBlocks(data: ViewData, details: CaseDetail[][], budget: number): string[] {
  let used = 0;
  const out: string[] = [];
  const cut = data.runs.map(() => 0);
  const longest = Math.max(0, ...data.runs.map((r) => r.rows.length));
  for (let i = 0; i < longest; i++)
    data.runs.forEach((run, r) => {
      const row = run.rows[i];
      const d = row && details[r]?.[row.detail];
      if (!row || !d) return;
      let json = scriptJson(d);
      if (used + json.length > budget) {
        cut[r]!++;
        json = scriptJson(leftOut(d, budget));
        used = budget; // spent: every later case is left out too, so the kept ones are the first in the ledger
      } else used += json.length;
      out.push(`<script type="application/json" id="d${r}-${row.detail}">${json}</script>`);
    });
  const total = data.runs.reduce((n, r) => n + r.rows.length, 0);
  const cases = cut.reduce((a, b) => a + b, 0);
  if (cases) {
    data.leftOut = { cases, of: total, budgetChars: budget };
    cut.forEach((n, r) => {
      if (n)
        data.runs[r]!.problems.push({
          file: data.runs[r]!.dir,
          message: `${n} of its ${data.runs[r]!.rows.length} cases' details are left out of this page (it holds at most ${budget} characters of case details): serve the runs (toolgauge view DIR) to see them`,
        });
    });
  }
  return out;
}

const hash = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

export function viewHtml(
  data: ViewData,
  details: CaseDetail[][],
  script: string,
  budget = EXPORT_DETAIL_BUDGET_CHARS,
): string {
  // A script's text ends at the first `</script`: the bundle must not contain one (it would be a bug in the page's code).
  if (/<\/script/i.test(script)) throw new Error('the page script contains </script');
  const csp = [
    `default-src 'none'`,
    `script-src ${hash(script)}`,
    `style-src ${hash(PAGE_CSS)}`,
    `img-src data:`,
    // the served page asks its server whether a new run was written (harness/view/history.ts)
    ...(data.liveVersion ? [`connect-src 'self'`] : []),
    `base-uri 'none'`,
    `form-action 'none'`,
  ].join('; ');
  const title = `toolgauge view — ${data.runs.map((r) => r.label).join(' vs ')}`;
  const blocks = caseBlocks(data, details, budget); // before the data block: it adds the problems of what it left out
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${PAGE_CSS}</style>`,
    '</head><body>',
    '<div id="app"><p>Loading…</p></div>',
    `<script type="application/json" id="tg-data">${scriptJson(data)}</script>`,
    // The page draws the ledger before the parser reaches the (many) case blocks: first render does not wait for them.
    `<script>${script}</script>`,
    ...blocks,
    '</body></html>',
    '',
  ].join('\n');
}
