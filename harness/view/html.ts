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
 * The most characters the case blocks of one page hold: a page must stay one string (V8 caps a string near 512
 * million characters). A case past it shows a "left out" note instead of its detail, and the run's problems name it.
 */
export const PAGE_DETAIL_BUDGET_CHARS = 256 * 1024 * 1024;

function leftOut(d: CaseDetail, size: number, budget: number): CaseDetail {
  const text = `This case's detail (${size} characters) is left out of the page: the page holds at most ${budget} characters of case details. Open fewer runs at once, or read the trace file.`;
  return {
    key: d.key,
    input: null,
    expected: null,
    predicted: null,
    scorers: [],
    sections: [{ kind: 'text', title: 'Left out', text }],
  };
}

/** Each case's block, within the page's budget; what is left out is added to its run's problems. */
function caseBlocks(data: ViewData, details: CaseDetail[][], budget: number): string[] {
  let used = 0;
  return details.flatMap((run, r) =>
    run.map((d, i) => {
      let json = scriptJson(d);
      if (used + json.length > budget) {
        data.runs[r]?.problems.push({
          file: data.runs[r]!.dir,
          message: `case ${d.key}: left out of the page (its detail is ${json.length} characters; the page's budget of ${budget} is spent)`,
        });
        json = scriptJson(leftOut(d, json.length, budget));
      }
      used += json.length;
      return `<script type="application/json" id="d${r}-${i}">${json}</script>`;
    }),
  );
}

const hash = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

export function viewHtml(
  data: ViewData,
  details: CaseDetail[][],
  script: string,
  budget = PAGE_DETAIL_BUDGET_CHARS,
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
