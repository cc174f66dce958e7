import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../harness/builtin/index.ts';
import { serveView, type ViewServer } from '../../harness/view/index.ts';
import { exportedPage } from '../helpers/exported-page.ts';
import { writeRun } from '../helpers/view-bench-runs.ts';
import { CHROMIUM, launchChromium, type Browser } from '../helpers/chromium.ts';
import { inProcess, tempDir } from '../helpers/cli.ts';
import { FAILING, HOSTILE_ANSWER, HOSTILE_ID, HOSTILE_TAG, twoViewRuns } from '../helpers/view-runs.ts';

// `toolgauge view` in a real browser (Debian's headless Chromium, driven over the DevTools pipe): two tiny simulator
// runs of a describeEval eval (sim:oracle, and sim:wrong which fails the additions), served by the viewer's server
// and exported by the CLI. A failing case opens with its transcript; the paired verdicts are those `report
// --compare` writes; a hostile id, tag and answer render as text and run nothing. One browser for the whole file.
// TOOLGAUGE_VIEW_SCREENSHOT=path also writes the screenshot there (docs/viewer.png is made that way).

const pageState = `JSON.stringify({
  pwned: document.documentElement.dataset.pwned ?? null,
  imgs: [...document.querySelectorAll('img')].filter((i) => !i.src.startsWith('data:image/svg+xml')).length,
  scripts: document.querySelectorAll('script:not([type="application/json"])').length,
  bold: document.querySelectorAll('#app b').length,
})`;

describe.skipIf(!CHROMIUM)(
  'toolgauge view in headless Chromium (needs Debian chromium: scripts/install-system-deps.sh)',
  () => {
    let browser: Browser;
    let server: ViewServer;
    const a = tempDir('view-a');
    const b = tempDir('view-b');
    const out = tempDir('view-out');

    beforeAll(async () => {
      await twoViewRuns(a, b);
      browser = launchChromium(60_000);
      server = await serveView(async () => (await exportedPage([a, b], { labels: ['sim:oracle', 'sim:wrong'] })).html);
    });
    afterAll(async () => {
      await server?.close();
      await browser?.close();
    });

    it("serves the runs: a failing case opens with its transcript, the verdicts are report --compare's, hostile data stays text", async () => {
      const page = await browser.open(server.url, { width: 1400, height: 1800 });
      await browser.waitFor(page, `document.querySelectorAll('#ledger .row').length === 3`);

      // The paired table shows exactly what `toolgauge report A B --compare` computes.
      const cmpDir = join(out, 'compare');
      const r = await inProcess(['report', a, b, '--compare', '--out-dir', cmpDir], {});
      expect(r.code, r.stderr).toBe(0);
      const expected = (
        JSON.parse(readFileSync(join(cmpDir, 'comparison.json'), 'utf8')) as Array<{
          results: Array<{ metric: string; verdict: string }>;
        }>
      )[0]!.results.map((x) => [x.metric, x.verdict]);
      const shown = await browser.evaluate<string[][]>(
        page,
        `[...document.querySelectorAll('#comparison tbody tr')].map((tr) => [tr.cells[0].textContent, tr.cells[7].textContent])`,
      );
      expect(shown).toEqual(expected);
      expect(expected.length).toBeGreaterThan(0);

      // The failing filter keeps the two additions; the failing case opens with its conversation.
      await browser.evaluate(
        page,
        `(() => { const s = document.getElementById('f-status'); s.value = 'failed'; s.dispatchEvent(new Event('change')); })()`,
      );
      expect(await browser.evaluate<string>(page, `document.getElementById('count').textContent`)).toBe('2 of 3 cases');
      // Two runs open: the row's reason names the run it belongs to (only sim:wrong fails the addition).
      const reason = await browser.evaluate<string>(
        page,
        `document.querySelector('#ledger .row[data-key="${FAILING.id}#0"] .reason').textContent`,
      );
      expect(reason).toMatch(/^sim:wrong: answer_matches: expected '42', answered '43'/);
      expect(reason).not.toContain('sim:oracle');
      await browser.evaluate(page, `document.querySelector('#ledger .row[data-key="${FAILING.id}#0"]').click()`);
      await browser.waitFor(page, `document.querySelector('#case .msg.tool')`);
      const caseText = await browser.evaluate<string>(page, `document.getElementById('case').innerText`);
      expect(caseText).toContain(FAILING.question);
      expect(caseText).toContain('tool call add');
      expect(caseText).toContain('"a": 19');
      expect(caseText).toContain('The result is <answer>43</answer>');
      expect(caseText).toMatch(/\d+ \+ \d+ tokens · \d+ ms · 1 attempt/);
      // The case's expected call beside the call made.
      expect(caseText).toContain('Expected tool calls beside the calls made');
      expect(caseText).toMatch(/add\(\{"a":19,"b":23\}\)\s+1\s+add\(\{"a":19,"b":23\}\)/);
      // Side by side: the baseline's column answers 42, the candidate's 43, the answer outlined as different.
      expect(await browser.evaluate<number>(page, `document.querySelectorAll('#case .side > section').length`)).toBe(2);
      expect(await browser.evaluate<number>(page, `document.querySelectorAll('#case .diff').length`)).toBeGreaterThan(
        0,
      );

      // From the comparison down: the verdicts, the ledger filtered to failures, the case side by side.
      const top = await browser.evaluate<number>(
        page,
        `document.getElementById('comparison').getBoundingClientRect().top + window.scrollY`,
      );
      const shot = await browser.send<{ data: string }>(
        'Page.captureScreenshot',
        { format: 'png', captureBeyondViewport: true, clip: { x: 0, y: top, width: 1400, height: 1500, scale: 0.6 } },
        page,
      );
      const png = Buffer.from(shot.data, 'base64');
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      writeFileSync(join(out, 'view.png'), png);
      if (process.env.TOOLGAUGE_VIEW_SCREENSHOT) {
        mkdirSync(dirname(process.env.TOOLGAUGE_VIEW_SCREENSHOT), { recursive: true });
        writeFileSync(process.env.TOOLGAUGE_VIEW_SCREENSHOT, png);
      }

      // j opens the next case of the filtered ledger: the hostile one, its id as the title's text.
      await browser.evaluate(page, `document.dispatchEvent(new KeyboardEvent('keydown', { key: 'j' }))`);
      expect(await browser.evaluate<string>(page, `document.querySelector('#case .case-title').textContent`)).toBe(
        HOSTILE_ID,
      );

      // The hostile case: found by searching its tag, opened; id, tag, question and answer are on the page as text.
      await browser.evaluate(
        page,
        `(() => { const s = document.getElementById('f-status'); s.value = 'all'; s.dispatchEvent(new Event('change')); const q = document.getElementById('search'); q.value = 'script'; q.dispatchEvent(new Event('input')); })()`,
      );
      expect(await browser.evaluate<number>(page, `document.querySelectorAll('#ledger .row').length`)).toBe(1);
      await browser.evaluate(page, `document.querySelector('#ledger .row').click()`);
      await browser.waitFor(page, `document.querySelector('#case .msg.assistant')`);
      const text = await browser.evaluate<string>(page, `document.getElementById('app').innerText`);
      expect(text).toContain(HOSTILE_ID);
      expect(text).toContain(HOSTILE_TAG);
      expect(text).toContain(HOSTILE_ANSWER);
      const tagOption = await browser.evaluate<boolean>(
        page,
        `[...document.querySelectorAll('#f-tag option')].some((o) => o.value === ${JSON.stringify(`op=${HOSTILE_TAG}`)})`,
      );
      expect(tagOption).toBe(true);
      expect(JSON.parse(await browser.evaluate<string>(page, pageState))).toEqual({
        pwned: null,
        imgs: 0,
        scripts: 1,
        bold: 0,
      });
    });

    it('--export writes one file that shows the same offline, with nothing loaded from anywhere', async () => {
      const file = join(out, 'view.html');
      const r = await inProcess(['view', a, b, '--export', file], {});
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('2 runs, 6 cases');
      const html = readFileSync(file, 'utf8');
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org)/);
      const page = await browser.open(`file://${file}#case=${encodeURIComponent(`${FAILING.id}#0`)}`);
      await browser.waitFor(page, `document.querySelector('#case .msg.tool')`);
      expect(await browser.evaluate<string>(page, `document.getElementById('case').innerText`)).toContain(
        'The result is <answer>43</answer>',
      );
      expect(
        await browser.evaluate<number>(page, `document.querySelectorAll('#comparison tbody tr').length`),
      ).toBeGreaterThan(0);
      expect(await browser.evaluate<number>(page, `performance.getEntriesByType('resource').length`)).toBe(0);
      expect(JSON.parse(await browser.evaluate<string>(page, pageState))).toMatchObject({
        pwned: null,
        imgs: 0,
        scripts: 1,
      });
    });

    it('--export over its budget: the first cases open, the page says how many it left out, search covers what it holds', async () => {
      const dir = join(out, 'forty');
      writeRun(dir, 'sim:forty', 40, (i) => i % 10 === 3);
      const full = await exportedPage([dir]);
      const over = await exportedPage([dir], { budget: Math.round(full.bytes / 2) });
      const kept = over.kept;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(39);
      const page = await browser.open(`file://${over.file}`);
      await browser.waitFor(page, 'window.__tgRendered');
      const count = () => browser.evaluate<string>(page, `document.getElementById('count').textContent`);
      expect(await count()).toBe(`${kept} of ${kept} cases`);
      expect(await browser.evaluate<string>(page, `document.getElementById('left-out').textContent`)).toContain(
        `${40 - kept} of 40 cases are left out`,
      );
      const search = (q: string) =>
        browser.evaluate(
          page,
          `(() => { const s = document.getElementById('search'); s.value = ${JSON.stringify(q)}; s.dispatchEvent(new Event('input')); })()`,
        );
      await search('case-39'); // left out
      expect(await count()).toBe(`0 of ${kept} cases`);
      await search(`case-${kept - 1}`); // the last case kept: found, and it opens with its transcript
      expect(await count()).toMatch(new RegExp(`^[1-9]\\d* of ${kept} cases$`));
      await browser.evaluate(page, `document.querySelector('#ledger .row[data-key="case-${kept - 1}#0"]').click()`);
      await browser.waitFor(page, `document.querySelector('#case .msg.tool')`);
    });
  },
);
