// `npm run bench:view`: the viewer on big runs. Generates two describeEval-shaped runs of --cases cases each
// (default 10,000; summary.json, the journal, a trace with a short tool conversation per case), builds the page as
// `toolgauge view A B` does, serves it on 127.0.0.1 and opens it in headless Chromium (Debian's; skipped, and
// said, without it). Measured: the build in Node (read, map, compare, write the HTML), the page's size, the time to
// first render in the browser (navigation start → the ledger drawn), and the time each filter takes (search,
// status, tag, "different only", sort) until the next frame. Medians over --reps page loads (default 3).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import '../harness/builtin/index.ts';
import { buildViewPage, serveView } from '../harness/view/index.ts';
import { CHROMIUM, launchChromium } from '../tests/helpers/chromium.ts';
import { writeRun } from '../tests/helpers/view-bench-runs.ts';
import { quantiles, round } from './lib.ts';

const { values } = parseArgs({
  options: { cases: { type: 'string', default: '10000' }, reps: { type: 'string', default: '3' } },
});
const N = Number(values.cases);
const reps = Number(values.reps);

const ms = (x: number) => round(x, 1);

async function main() {
  const root = mkdtempSync(join(tmpdir(), 'tg-bench-view-'));
  try {
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    let t = performance.now();
    writeRun(a, 'sim:bench-a', N, (i) => i % 10 === 3);
    writeRun(b, 'sim:bench-b', N, (i) => i % 10 === 3 || i % 17 === 5);
    const genMs = performance.now() - t;
    t = performance.now();
    const page = await buildViewPage([a, b]);
    const buildMs = performance.now() - t;
    console.log(
      `toolgauge view bench: 2 runs × ${N} cases (generated in ${ms(genMs)} ms); page built in ${ms(buildMs)} ms, ${round(page.html.length / 1048576, 1)} MiB`,
    );
    if (!CHROMIUM) {
      console.log(
        'browser figures skipped: no Chromium (/usr/bin/chromium; scripts/install-system-deps.sh installs it)',
      );
      return;
    }
    const server = await serveView(async () => page.html);
    const browser = launchChromium(120_000);
    const figures: Record<string, number[]> = {};
    const note = (k: string, v: number) => (figures[k] ??= []).push(v);
    try {
      for (let r = 0; r < reps; r++) {
        const s = await browser.open(server.url);
        note(
          'first render (navigation → ledger drawn)',
          await browser.waitFor<number>(s, 'window.__tgRendered', 120_000),
        );
        // Each filter: from the event to the next frame after the ledger is redrawn.
        const filter = (js: string) =>
          browser.evaluate<number>(
            s,
            `new Promise((done) => { const t0 = performance.now(); ${js}; requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0))); })`,
          );
        const set = (id: string, v: string, ev: string) =>
          `(() => { const el = document.getElementById('${id}'); el.value = ${JSON.stringify(v)}; el.dispatchEvent(new Event('${ev}')); })()`;
        note('filter: search "case-12"', await filter(set('search', 'case-12', 'input')));
        note('filter: clear search', await filter(set('search', '', 'input')));
        note('filter: failed', await filter(set('f-status', 'failed', 'change')));
        note('filter: tag op=add', await filter(set('f-tag', 'op=add', 'change')));
        note(
          'filter: different only',
          await filter(
            `(() => { const el = document.getElementById('f-changed'); el.checked = true; el.dispatchEvent(new Event('change')); })()`,
          ),
        );
        note(
          'sort: worst status first (all cases)',
          await filter(
            `${set('f-status', 'all', 'change')}; ${set('f-tag', '', 'change')}; document.getElementById('f-changed').checked = false; ${set('sort', 'status', 'change')}`,
          ),
        );
        note('open a case (side by side)', await filter(`document.querySelector('#ledger .row').click()`));
        note(
          'rows in the ledger after the sort (all cases)',
          await browser.evaluate<number>(s, `Number(document.getElementById('count').textContent.split(' ')[0])`),
        );
        await browser.send('Target.closeTarget', {
          targetId: (
            await browser.send<{ targetInfos: Array<{ targetId: string; type: string }> }>('Target.getTargets')
          ).targetInfos.find((x) => x.type === 'page')!.targetId,
        });
      }
    } finally {
      await browser.close();
      await server.close();
    }
    console.log(`Chromium (headless, ${reps} page loads; median [min, max] ms):`);
    for (const [k, v] of Object.entries(figures)) {
      const q = quantiles(v);
      console.log(`  ${k.padEnd(42)} ${ms(q.median)}  [${ms(Math.min(...v))}, ${ms(Math.max(...v))}]`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
