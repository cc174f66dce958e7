import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/cli.ts';
import { runSweep, sweepGrid } from './sweep.ts';

// The sweep through the kit, on the simulator: every cell on the same rows, one table with CIs, token costs and
// each team paired against `single`.

interface SweepJson {
  cells: Array<{
    label: string;
    metrics: Record<string, { value: number | null; lo: number | null; hi: number | null; n: number }>;
  }>;
  comparisons: Array<{ candidate: string; results: Array<{ metric: string; diff: number; verdict: string }> }>;
}

describe('toolhop sweep', () => {
  it('single and an independent team of 3 on sim:oracle: both cells complete, the team costs credibly more tokens for no change in accuracy', async () => {
    const out = tempDir('sweep');
    const env = {
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLHOP_LIMIT: '11',
      TOOLGAUGE_SANDBOX: 'python',
      TOOLHOP_ALLOW_DATASET_EXEC: '1',
      TOOLGAUGE_CONCURRENCY: '8',
    };
    const r = await runSweep(sweepGrid(['single', 'independent'], [3], ['freeform']), env, out);
    const json = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as SweepJson;
    expect(json.cells.map((c) => c.label)).toEqual(r.cells.map((c) => c.label));
    expect(json.cells).toHaveLength(2);
    for (const c of json.cells) {
      expect(c.metrics.accuracy, c.label).toMatchObject({ value: 1, n: 11 });
      expect(c.metrics.tokens_per_correct!.lo, c.label).not.toBeNull();
      expect(c.metrics.error_rate!.value, c.label).toBe(0);
    }
    const [single, team] = json.cells;
    // three voters each run the whole chain: about three times the tokens on every row
    expect(team!.metrics.tokens_per_correct!.value! / single!.metrics.tokens_per_correct!.value!).toBeGreaterThan(2.5);
    const cmp = json.comparisons.find((c) => c.candidate === team!.label)!;
    expect(cmp.results.find((x) => x.metric === 'accuracy')).toMatchObject({ diff: 0 });
    expect(cmp.results.find((x) => x.metric === 'accuracy')!.verdict).toMatch(/no credible change/);
    expect(cmp.results.find((x) => x.metric === 'tokens')!.diff).toBeGreaterThan(0);
    expect(cmp.results.find((x) => x.metric === 'tokens')!.verdict).not.toMatch(/no credible change/);
    const md = readFileSync(join(out, 'sweep.md'), 'utf8');
    expect(md).toContain(`| ${team!.label} |`);
    expect(existsSync(join(out, 'sweep.svg'))).toBe(true);
    // each cell's full run is kept in its own folder
    for (const c of json.cells) expect(existsSync(join(out, c.label, 'summary.json')), c.label).toBe(true);
  });
});
