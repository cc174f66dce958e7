import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDirs, runsVersion, serveView, ServedViews, type ViewServer } from '../../harness/view/index.ts';
import { CHROMIUM, launchChromium, type Browser } from '../helpers/chromium.ts';
import { tempDir } from '../helpers/cli.ts';
import { writeRun } from '../helpers/view-bench-runs.ts';

// The served viewer's paged ledger in a real browser: 45 cases fetched from /index 10 rows at a time. Scrolling shows
// rows past the first index page, the search finds a case there, and opening it fetches its detail from /case.

describe.skipIf(!CHROMIUM)('toolgauge view, served and paged, in headless Chromium', () => {
  let browser: Browser;
  let server: ViewServer;
  const dir = join(tempDir('view-paged'), 'run');

  beforeAll(async () => {
    writeRun(dir, 'sim:paged', 45, (i) => i % 10 === 3);
    const views = new ServedViews([dir], { pageSize: 10 });
    browser = launchChromium(60_000);
    server = await serveView(async () => (await views.build()).html, {
      api: (p, q) => views.answer(p, q),
      version: () => runsVersion(runDirs([dir])), // the page polls it, and would reload on a 404
    });
  });
  afterAll(async () => {
    await server?.close();
    await browser?.close();
  });

  it('shows the rows past the first page, searches them all and opens one on demand', async () => {
    const page = await browser.open(server.url, { width: 1200, height: 900 });
    await browser.waitFor(page, `window.__tgLoaded !== undefined`);
    expect(await browser.evaluate<string>(page, `document.getElementById('count').textContent`)).toBe('45 of 45 cases');
    const drawn = () =>
      browser.evaluate<string[]>(page, `[...document.querySelectorAll('#ledger .row')].map((r) => r.dataset.key)`);
    expect(await drawn()).not.toContain('case-44#0');
    // the ledger draws the window it is scrolled to: its end is the last index page's rows
    await browser.evaluate(
      page,
      `(() => { const l = document.getElementById('ledger'); l.scrollTop = l.scrollHeight; l.dispatchEvent(new Event('scroll')); })()`,
    );
    expect(await drawn()).toContain('case-44#0');
    await browser.evaluate(
      page,
      `(() => { const s = document.getElementById('search'); s.value = 'case-37'; s.dispatchEvent(new Event('input')); })()`,
    );
    expect(await browser.evaluate<string>(page, `document.getElementById('count').textContent`)).toBe('1 of 45 cases');
    expect(await drawn()).toEqual(['case-37#0']);
    await browser.evaluate(page, `document.querySelector('#ledger .row').click()`);
    await browser.waitFor(page, `document.querySelector('#case .msg.tool')`);
    const text = await browser.evaluate<string>(page, `document.getElementById('case').innerText`);
    expect(text).toContain('What is 37 plus 81?');
    expect(text).toContain('tool call add');
  });
});
