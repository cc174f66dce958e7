import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../harness/builtin/index.ts';
import type { CaseDetail, ViewData } from '../../harness/view/model.ts';
import { inProcess, tempDir } from '../helpers/cli.ts';
import { twoViewRuns } from '../helpers/view-runs.ts';

// An exported page is shared (a CI artifact): it must not say where the runs lived. Two real runs (describeEval on
// the simulator) under a home folder, and a third without its summary (its problems and the refused comparison name
// files), exported: no absolute path is left, and each path shown, joined to the folder the viewer was opened on,
// still names the file.

const blocks = (html: string) =>
  [...html.matchAll(/<script type="application\/json" id="([^"]+)">([\s\S]*?)<\/script>/g)].map(
    (m) => [m[1]!, JSON.parse(m[2]!) as unknown] as const,
  );

describe('toolgauge view --export: paths relative to the folder it was opened on', () => {
  it('leaves neither the run folders, the temporary folder nor $HOME in the file, and every path shown resolves', async () => {
    const home = tempDir('view-home');
    const results = join(home, 'project', 'results');
    await twoViewRuns(join(results, 'oracle'), join(results, 'wrong'));
    cpSync(join(results, 'wrong'), join(results, 'nosummary'), { recursive: true });
    rmSync(join(results, 'nosummary', 'summary.json'));
    const file = join(home, 'view.html');

    const r = await inProcess(['view', results, '--export', file], { HOME: home });
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(file, 'utf8');
    for (const abs of [home, resolve(home, '..'), results]) expect(html).not.toContain(abs);
    expect(html).not.toMatch(/"(file|dir)":"\//);

    const data = blocks(html).find(([id]) => id === 'tg-data')![1] as ViewData;
    expect(data.runs.map((x) => x.dir).sort()).toEqual(['nosummary', 'oracle', 'wrong']);
    for (const run of data.runs) expect(existsSync(join(results, run.dir, 'instances.jsonl'))).toBe(true);
    // The missing summary is named where it would be, inside its run's folder.
    const missing = data.runs.find((x) => x.dir === 'nosummary')!.problems.map((p) => p.file);
    expect(missing).toContain(join('nosummary', 'summary.json'));
    expect(data.comparisonRefused).toContain(join('nosummary', 'summary.json'));
    // Each case's journal line names its trace relative to its run folder: the file is there.
    const traces = blocks(html)
      .filter(([id]) => /^d\d+-\d+$/.test(id))
      .flatMap(([id, d]) => {
        const run = data.runs[Number(/^d(\d+)/.exec(id)![1])]!;
        const json = (d as CaseDetail).sections.map((s) => JSON.stringify(s)).join('\n');
        return [...json.matchAll(/\\"trace\\": \\"([^"\\]+)\\"/g)].map((m) => join(results, run.dir, m[1]!));
      });
    expect(traces.length).toBeGreaterThan(0);
    for (const t of traces) expect(existsSync(t), t).toBe(true);
  });
});
