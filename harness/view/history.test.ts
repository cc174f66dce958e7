import { request } from 'node:http';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepRun, RUNS_DIR } from '../kit/run-history.ts';
import { tempDir } from '../../tests/helpers/cli.ts';
import { twoViewRuns } from '../../tests/helpers/view-runs.ts';
import type { ViewData } from './model.ts';
import { exportedPage } from '../../tests/helpers/exported-page.ts';

// A run's history in the viewer: the runs kept under <dir>/runs/ listed (date, pass rate, model), any of them opened
// in the run's place on the served page (and only those), and the served page's /version changing when a run is kept.

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

const dataOf = (html: string) =>
  JSON.parse(/<script type="application\/json" id="tg-data">(.*?)<\/script>/s.exec(html)![1]!) as ViewData;

/** pass_rate as the kept run's own summary.json says: the oracle the history is checked against. */
const passRateIn = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { metrics: { pass_rate: { value: number } } }).metrics
    .pass_rate.value;

/** `toolgauge view DIR` in this process: its URL once it prints it, and a stop. */
async function served(dir: string) {
  const { main } = await import('../cli/main.ts');
  const write = process.stdout.write;
  let url = '';
  const printed = new Promise<void>((resolve) => {
    process.stdout.write = ((c: string) => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(String(c));
      if (m) (url = m[1]!), resolve();
      return true;
    }) as typeof process.stdout.write;
  });
  const done = main(['view', dir]).finally(() => (process.stdout.write = write));
  await Promise.race([printed, done]);
  return { url: () => url, stop: () => (process.emit('SIGINT'), done) };
}

describe('toolgauge view: a run history', () => {
  it('keeps a copy of the run without its lock, claim, history or links', async () => {
    const d = tempDir('history-keep');
    mkdirSync(join(d, 'traces'));
    writeFileSync(join(d, 'summary.json'), '{}');
    writeFileSync(join(d, 'traces', 'a.json'), '[1]');
    writeFileSync(join(d, '.toolgauge-lock'), 'x');
    writeFileSync(join(d, '.toolgauge-run'), 'x');
    symlinkSync('/etc/passwd', join(d, 'report.md'));
    const at = new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 678));
    const first = keepRun(d, at);
    const second = keepRun(d, at); // the same second: a name of its own
    expect([first, second]).toEqual([
      join(d, RUNS_DIR, '2025-01-02T03-04-05.678Z'),
      join(d, RUNS_DIR, '2025-01-02T03-04-05.678Z-2'),
    ]);
    expect(readdirSync(second).sort()).toEqual(['summary.json', 'traces']);
    expect(readFileSync(join(second, 'traces', 'a.json'), 'utf8')).toBe('[1]');
    expect(lstatSync(join(second, 'summary.json')).isFile()).toBe(true);
  });

  it('lists the kept runs, opens only those, and its /version changes when one is kept', async () => {
    const root = tempDir('history-view');
    const [latest, other] = [join(root, 'latest'), join(root, 'other')];
    await twoViewRuns(latest, other);
    // The history: the oracle's run kept first, then the wrong model's run, moved in as a later one.
    const older = keepRun(latest, new Date(Date.UTC(2025, 0, 1)));
    const newer = join(latest, RUNS_DIR, '2025-01-02T00-00-00.000Z');
    renameSync(keepRun(other, new Date(Date.UTC(2025, 0, 2))), newer);
    const view = await served(latest);
    try {
      const page = dataOf((await get(view.url())).body);
      // paths on the page are relative to the folder the viewer was opened on (a run folder: its parent)
      expect(page.runs[0]!.dir).toBe(relative(root, latest));
      const h = page.runs[0]!.history!;
      expect(h.map((x) => [x.name, x.model, x.passRate, x.shown, x.open])).toEqual([
        ['2025-01-02T00-00-00.000Z', 'sim:wrong', passRateIn(newer), false, '0/2025-01-02T00-00-00.000Z'],
        ['2025-01-01T00-00-00.000Z', 'sim:oracle', passRateIn(older), false, '0/2025-01-01T00-00-00.000Z'],
      ]);
      expect(passRateIn(newer)).not.toBe(passRateIn(older));
      // opening a kept run shows it in the run's place, its history marking it
      const opened = dataOf((await get(`${view.url()}?open=${encodeURIComponent(h[0]!.open!)}`)).body);
      expect(opened.runs[0]!.dir).toBe(relative(root, newer));
      expect(opened.runs[0]!.history!.map((x) => x.shown)).toEqual([true, false]);
      // a name that is not a kept run of this directory opens nothing: the latest run is shown
      for (const open of ['0/..', '0/../../other', '1/2025-01-01T00-00-00.000Z', '0/2024-01-01T00-00-00.000Z'])
        expect(dataOf((await get(`${view.url()}?open=${encodeURIComponent(open)}`)).body).runs[0]!.dir).toBe(
          relative(root, latest),
        );
      // the page was built at this version; a newly kept run changes it
      const v1 = (await get(`${view.url()}version`)).body;
      expect(page.liveVersion).toBe(v1);
      expect((await get(`${view.url()}version`)).body).toBe(v1);
      keepRun(latest, new Date(Date.UTC(2025, 0, 3)));
      expect((await get(`${view.url()}version`)).body).not.toBe(v1);
    } finally {
      await view.stop();
    }
    // an exported page neither polls nor links
    const exported = await exportedPage([latest]);
    const data = dataOf(exported.html);
    expect(data.liveVersion).toBeUndefined();
    expect(data.runs[0]!.history!.map((x) => x.open)).toEqual([null, null, null]);
    expect(exported.html).not.toContain('connect-src');
  });
});
