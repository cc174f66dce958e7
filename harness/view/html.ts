import { createHash } from 'node:crypto';
import type { ViewData } from './model.ts';
import { PAGE_CSS } from './page-css.ts';

/**
 * The viewer as one self-contained HTML file: the data as JSON in `<script type="application/json">` blocks (never
 * executed; every `<`, `>`, `&` and line separator in them escaped, so no string from a run can close the block), the
 * page's script and style inline, and a Content-Security-Policy that allows only those two (by hash), images from
 * data: URLs and nothing from the network. `toolgauge view` serves it (the rows and cases fetched on demand);
 * `--export` writes it with its rows and case blocks (export.ts).
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

const hash = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/**
 * The page around its data block: `start` (head, style, the app's placeholder) up to the data's JSON, `script` from
 * the end of the data block to the page's script, and `end`. An exported page writes its case blocks between `script`
 * and `end`: the page draws the ledger before the parser reaches the (many) case blocks.
 */
export function pageFrame(data: ViewData, script: string): { start: string; script: string; end: string } {
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
  return {
    start: [
      '<!doctype html>',
      '<html lang="en"><head><meta charset="utf-8">',
      `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`,
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      `<title>${escapeHtml(title)}</title>`,
      `<style>${PAGE_CSS}</style>`,
      '</head><body>',
      '<div id="app"><p>Loading…</p></div>',
      '<script type="application/json" id="tg-data">',
    ].join('\n'),
    script: `</script>\n<script>${script}</script>\n`,
    end: '</body></html>\n',
  };
}

/** A case's detail block, `d<run>-<detail>`, as the page looks it up. */
export function caseBlock(run: number, detail: number, json: string): string {
  return `<script type="application/json" id="d${run}-${detail}">${json}</script>\n`;
}

/** The page with its data and no case block (the served page: its rows and cases come from the server). */
export function viewHtml(data: ViewData, script: string): string {
  const f = pageFrame(data, script);
  return f.start + scriptJson(data) + f.script + f.end;
}
