// `npm run bench:view`: the viewer on big runs. Generates two describeEval-shaped runs of --cases cases each
// (default 10,000; summary.json, the journal, a trace with a short tool conversation per case), builds the page as
// `toolgauge view A B` does, serves it on 127.0.0.1 and opens it in headless Chromium (Debian's; skipped, and
// said, without it). Measured: the build in Node (read, map, compare, write the HTML), the page's size, the time to
// first render in the browser (navigation start → the ledger drawn), and the time each filter takes (search,
// status, tag, "different only", sort) until the next frame. Medians over --reps page loads (default 3).
//
// `--mode paged`: the served viewer (below). `--mode export`: `toolgauge view DIR --export FILE` as a process of its
// own, on one generated run of --cases cases or on the run folder `--dir DIR`: its wall and CPU time, the peak RSS and
// PSS of its process tree, the page's size and the cases it holds (`--bin FILE`: another checkout's
// bin/toolgauge.mjs, to measure it the same way; `--about TEXT` says in the record what it is). `--record-as NAME` writes bench/records/NAME.json (never over an
// existing one); `--record` (paged mode) writes bench/records/view.json.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import '../harness/builtin/index.ts';
import { fromRoot } from '../harness/core/paths.ts';
import { exportViewPage, runDirs, runsVersion, ServedViews, serveView } from '../harness/view/index.ts';
import { type Browser, CHROMIUM, launchChromium } from '../tests/helpers/chromium.ts';
import { writeRun } from '../tests/helpers/view-bench-runs.ts';
import { accountedRun, quantiles, round } from './lib.ts';
import { recordPath, writeRecord } from './record.ts';

/** Page script: set a control's value and fire the event its listener waits for. */
const set = (id: string, v: string, ev: string) =>
  `(() => { const el = document.getElementById('${id}'); el.value = ${JSON.stringify(v)}; el.dispatchEvent(new Event('${ev}')); })()`;
/** Page script: tick "different only". */
const DIFFERENT_ONLY = `(() => { const el = document.getElementById('f-changed'); el.checked = true; el.dispatchEvent(new Event('change')); })()`;

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '10000' },
    reps: { type: 'string', default: '3' },
    mode: { type: 'string', default: 'whole' },
    record: { type: 'boolean', default: false },
    'record-as': { type: 'string' },
    dir: { type: 'string' },
    bin: { type: 'string' },
    about: { type: 'string' },
  },
});
if (!['whole', 'paged', 'export'].includes(values.mode))
  throw new Error(`--mode: whole, paged or export, not ${values.mode}`);
const recordAs = values['record-as'];
if (recordAs !== undefined && (!/^[a-z0-9][a-z0-9-]*$/.test(recordAs) || existsSync(recordPath(recordAs))))
  throw new Error(
    `--record-as: a new record's name (lower-case letters, digits, '-'), not an existing one: '${recordAs}'`,
  );
const N = Number(values.cases);
const reps = Number(values.reps);

const ms = (x: number) => round(x, 1);

/** Close the page a round opened, so the next round loads the viewer into a fresh one. */
async function closePage(browser: Browser): Promise<void> {
  const { targetInfos } = await browser.send<{ targetInfos: Array<{ targetId: string; type: string }> }>(
    'Target.getTargets',
  );
  await browser.send('Target.closeTarget', { targetId: targetInfos.find((x) => x.type === 'page')!.targetId });
}

async function main() {
  const root = mkdtempSync(join(tmpdir(), 'tg-bench-view-'));
  try {
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    let t = performance.now();
    writeRun(a, 'sim:bench-a', N, (i) => i % 10 === 3);
    writeRun(b, 'sim:bench-b', N, (i) => i % 10 === 3 || i % 17 === 5);
    const genMs = performance.now() - t;
    t = performance.now();
    const file = join(root, 'view.html');
    await exportViewPage([a, b], file);
    const page = { html: readFileSync(file, 'utf8') };
    const buildMs = performance.now() - t;
    console.log(
      `toolgauge view bench: 2 runs × ${N} cases (generated in ${ms(genMs)} ms); page exported in ${ms(buildMs)} ms, ${round(page.html.length / 1048576, 1)} MiB`,
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
        note('filter: search "case-12"', await filter(set('search', 'case-12', 'input')));
        note('filter: clear search', await filter(set('search', '', 'input')));
        note('filter: failed', await filter(set('f-status', 'failed', 'change')));
        note('filter: tag op=add', await filter(set('f-tag', 'op=add', 'change')));
        note('filter: different only', await filter(DIFFERENT_ONLY));
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
        await closePage(browser);
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

/** A full collection, so the heap measured is what is held (no flag needed on the command line). */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const heldMib = () => {
  collect();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 1048576;
};

/** Heap and RSS sampled every 20 ms: the peak while the server builds and answers. */
function memorySampler() {
  const peak = { heap: 0, rss: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.heap = Math.max(peak.heap, m.heapUsed + m.arrayBuffers);
    peak.rss = Math.max(peak.rss, m.rss);
  };
  const timer = setInterval(sample, 20);
  return {
    peak,
    reset: () => ((peak.heap = 0), (peak.rss = 0), sample()),
    stop: () => clearInterval(timer),
  };
}

/**
 * The served, paged viewer (`toolgauge view A B`): the server reads the runs once (rows and offsets, no details),
 * the page fetches the ledger's compact index from /index and a case from /case. Measured: the server's build, the
 * index's weight, first render (navigation → ledger drawn at the first index page of each run) and the whole ledger
 * in, search and filters over every row until the next frame, opening a case (fetch + render) and the server
 * process's peak memory while it builds and serves.
 */
async function paged() {
  const root = mkdtempSync(join(tmpdir(), 'tg-bench-view-'));
  const mem = memorySampler();
  try {
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    let t = performance.now();
    writeRun(a, 'sim:bench-a', N, (i) => i % 10 === 3);
    writeRun(b, 'sim:bench-b', N, (i) => i % 10 === 3 || i % 17 === 5);
    const genMs = performance.now() - t;
    const heldBefore = heldMib();
    mem.reset();
    t = performance.now();
    const views = new ServedViews([a, b]);
    const built = await views.build();
    const buildMs = performance.now() - t;
    const heldServing = heldMib() - heldBefore; // the server's rows and offsets, once built
    // `version`: what the page polls to reload when a run changes (here: never), as `toolgauge view` serves it
    const server = await serveView(async () => (await views.build()).html, {
      api: (p, q) => views.answer(p, q),
      version: () => runsVersion(runDirs([a, b])),
    });
    // The index's weight: every page the page fetches, as JSON on the wire.
    const build = /"build":"([0-9a-f]+)"/.exec(built.html)![1]!;
    let indexBytes = 0;
    for (let run = 0; run < 2; run++)
      for (let from = 0; from < N; from += 20_000) {
        const r = views.answer(
          '/index',
          new URLSearchParams({ build, run: String(run), from: String(from), count: '20000' }),
        )!;
        indexBytes += Buffer.byteLength(JSON.stringify(r.json));
      }
    const figures: Record<string, number[]> = {};
    const note = (k: string, v: number) => (figures[k] ??= []).push(v);
    console.log(
      `toolgauge view bench (served, paged): 2 runs × ${N} cases (generated in ${ms(genMs)} ms); server build ${ms(buildMs)} ms; page ${round(built.html.length / 1024, 1)} KiB; index ${round(indexBytes / 1048576, 2)} MiB`,
    );
    if (!CHROMIUM) {
      console.log(
        'browser figures skipped: no Chromium (/usr/bin/chromium; scripts/install-system-deps.sh installs it)',
      );
      return;
    }
    const browser = launchChromium(300_000);
    try {
      for (let r = 0; r < reps; r++) {
        const s = await browser.open(server.url);
        note('first_render_ms', await browser.waitFor<number>(s, 'window.__tgRendered', 300_000));
        note('ledger_loaded_ms', await browser.waitFor<number>(s, 'window.__tgLoaded', 300_000));
        const filter = (js: string) =>
          browser.evaluate<number>(
            s,
            `new Promise((done) => { const t0 = performance.now(); ${js}; requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0))); })`,
          );
        note('search_ms', await filter(set('search', `case-${N - 123}`, 'input')));
        note(
          'search_rows',
          await browser.evaluate<number>(s, `Number(document.getElementById('count').textContent.split(' ')[0])`),
        );
        note('clear_search_ms', await filter(set('search', '', 'input')));
        note('filter_failed_ms', await filter(set('f-status', 'failed', 'change')));
        note('different_only_ms', await filter(DIFFERENT_ONLY));
        note(
          'sort_status_ms',
          await filter(
            `${set('f-status', 'all', 'change')}; document.getElementById('f-changed').checked = false; ${set('sort', 'status', 'change')}`,
          ),
        );
        // Opening a case: the click, both runs' details fetched from /case, the case drawn, the next frame.
        note(
          'open_case_ms',
          await browser.evaluate<number>(
            s,
            `new Promise((done) => { const t0 = performance.now(); document.querySelector('#ledger .row').click();
              const wait = () => document.querySelector('#case .msg.tool') ? requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0))) : setTimeout(wait, 1);
              wait(); })`,
          ),
        );
        await closePage(browser);
      }
    } finally {
      await browser.close();
      await server.close();
    }
    const out: Record<string, number> = {
      cases_per_run: N,
      server_build_ms: buildMs,
      page_kib: built.html.length / 1024,
      index_kib: indexBytes / 1024,
      server_peak_heap_mib: mem.peak.heap / 1048576,
      server_peak_rss_mib: mem.peak.rss / 1048576,
      server_held_mib: heldServing,
      server_held_after_mib: heldMib() - heldBefore,
    };
    console.log(`Chromium (headless, ${reps} page loads; median [min, max] ms):`);
    for (const [k, v] of Object.entries(figures)) {
      const q = quantiles(v);
      out[k] = q.median;
      console.log(`  ${k.padEnd(42)} ${ms(q.median)}  [${ms(Math.min(...v))}, ${ms(Math.max(...v))}]`);
    }
    console.log(
      `server: peak heap ${round(out.server_peak_heap_mib!, 1)} MiB, peak RSS ${round(out.server_peak_rss_mib!, 1)} MiB (build and serving); held once built ${round(heldServing, 1)} MiB, after the page loads ${round(out.server_held_after_mib!, 1)} MiB (after a full collection)`,
    );
    if (values.record)
      writeRecord('view', out, `npm run bench:view -- --mode paged --cases ${N} --reps ${reps} --record`);
    if (recordAs)
      writeRecord(
        recordAs,
        out,
        `npm run bench:view -- --mode paged --cases ${N} --reps ${reps} --record-as ${recordAs}`,
      );
  } finally {
    mem.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * `toolgauge view DIR --export FILE` in a process of its own (bin/toolgauge.mjs, as a user runs it), its whole tree
 * measured (bench/lib.ts accountedRun: CPU from a cpuacct cgroup where there is one, RSS and PSS sampled).
 */
async function exported() {
  const root = mkdtempSync(join(tmpdir(), 'tg-bench-view-'));
  try {
    let dir = values.dir;
    if (!dir) {
      dir = join(root, 'a');
      const t = performance.now();
      writeRun(dir, 'sim:bench-a', N, (i) => i % 10 === 3);
      console.log(`generated 1 run × ${N} cases in ${ms(performance.now() - t)} ms`);
    }
    const file = join(root, 'view.html');
    const bin = values.bin ?? fromRoot('bin', 'toolgauge.mjs');
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^(TOOLGAUGE_|VITEST|NODE_OPTIONS)/.test(k)) env[k] = v;
    Object.assign(env, { FORCE_COLOR: '0', NO_COLOR: '1' });
    const load = () =>
      loadavg()
        .map((x) => x.toFixed(2))
        .join(' ');
    console.log(`load average before: ${load()}`);
    const r = await accountedRun(bin, ['view', dir, '--export', file], env, root);
    console.log(`load average after: ${load()}`);
    if (r.code !== 0) throw new Error(`toolgauge view --export: exit ${r.code}\n${r.stderr.slice(-3000)}`);
    console.log(r.stdout);
    const total = Number(/(\d+) cases?\b/.exec(r.stdout)?.[1] ?? NaN);
    const left = /left out: (\d+) of/.exec(r.stdout);
    const out: Record<string, number> = {
      cases: total,
      kept_cases: total - Number(left?.[1] ?? 0),
      page_kib: statSync(file).size / 1024,
      wall_ms: r.wallMs,
      ...(r.cpuS === null ? {} : { cpu_ms: r.cpuS * 1000 }),
      peak_rss_mib: r.peakTreeRssMb,
      peak_pss_mib: r.peakTreePssMb,
    };
    for (const [k, v] of Object.entries(out)) console.log(`  ${k.padEnd(14)} ${round(v, 1)}`);
    if (recordAs) {
      const command = `npm run bench:view -- --mode export ${values.dir ? `--dir ${values.dir}` : `--cases ${N}`}${values.bin ? ` --bin ${values.bin}` : ''} --record-as ${recordAs}`;
      // this checkout's bin named relative to it: a record holds no path of the machine it was measured on
      const shown = values.bin ?? 'bin/toolgauge.mjs';
      writeRecord(recordAs, out, command, { bin: shown, ...(values.about ? { about: values.about } : {}) });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await (values.mode === 'paged' ? paged() : values.mode === 'export' ? exported() : main());
