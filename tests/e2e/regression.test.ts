import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { readJson, tempDir, toolgauge } from '../helpers/cli.ts';

// The suites on the kit give the numbers they gave as three hand-built pipelines: summary metrics, breakdowns
// and counts of fixed-seed simulator runs, captured before the kit (fixtures/regression/*.json), must not move.
// Metrics added since (e.g. strict_accuracy) are not in the fixtures and are not compared.

interface Golden {
  args: string[];
  counts: Record<string, number>;
  metrics: Record<string, unknown>;
  breakdowns: Record<string, unknown>;
}

const golden = (name: string) => JSON.parse(readFileSync(fromRoot('fixtures', 'regression', `${name}.json`), 'utf8')) as Golden;

/** Every leaf of `want` equals the same path in `got`. */
function differences(want: unknown, got: unknown, path = ''): string[] {
  if (want && typeof want === 'object') return Object.entries(want as Record<string, unknown>).flatMap(([k, v]) => differences(v, (got as Record<string, unknown> | undefined)?.[k], `${path}.${k}`));
  return Object.is(want, got) ? [] : [`${path}: was ${JSON.stringify(want)}, now ${JSON.stringify(got)}`];
}

async function check(name: string): Promise<void> {
  const g = golden(name);
  const out = tempDir(`regression-${name}`);
  const r = await toolgauge([...g.args, '--out-dir', out], { TOOLHOP_ALLOW_DATASET_EXEC: '1' });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const s = readJson<Golden>(join(out, 'summary.json'));
  expect([...differences(g.metrics, s.metrics, 'metrics'), ...differences(g.breakdowns, s.breakdowns, 'breakdowns'), ...differences(g.counts, s.counts, 'counts')], name).toEqual([]);
}

describe('the same numbers as before the suite kit (fixed seeds, simulator)', () => {
  it('ToolHop: sim:coin?p=0.6 with 3 trials, and sim:wrong', async () => {
    await Promise.all([check('toolhop-coin'), check('toolhop-wrong')]);
  });
  it('Maze: sim:naive on C1–C2 in every mode, sim:oracle on C3–C4 in P0 and P3', async () => {
    await Promise.all([check('maze-naive'), check('maze-oracle')]);
  });
  it('Probe: parser gaps over completions, decision failures over chat', async () => {
    await Promise.all([check('probe-parser-gap'), check('probe-decision')]);
  });
});
