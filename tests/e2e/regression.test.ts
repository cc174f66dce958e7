import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import type { AnySuite } from '../../harness/kit/types.ts';
import { mazeSuite } from '../../harness/maze/suite.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { tempDir } from '../helpers/cli.ts';

// The suites on the kit give the numbers they gave as three hand-built pipelines: summary metrics, breakdowns and
// counts of fixed-seed simulator runs, captured before the kit with the CLI (fixtures/regression/*.json, `args`),
// must not move. The runs here go through the kit in process (sessions, files, finalize: what the reporter runs),
// over HTTP to the simulator. Metrics added since (e.g. strict_accuracy) are not in the fixtures.

interface Golden {
  args: string[];
  counts: Record<string, number>;
  metrics: Record<string, unknown>;
  breakdowns: Record<string, unknown>;
}

/** Each fixture's CLI arguments as the environment variables the CLI turns them into. */
const RUNS: Record<string, [AnySuite, Record<string, string>]> = {
  'toolhop-coin': [
    toolhopSuite,
    { TOOLGAUGE_MODEL: 'sim:coin?p=0.6', TOOLHOP_LIMIT: '11', TOOLGAUGE_TRIALS: '3', TOOLGAUGE_SEED: '3' },
  ],
  'toolhop-wrong': [toolhopSuite, { TOOLGAUGE_MODEL: 'sim:wrong', TOOLHOP_LIMIT: '11' }],
  'maze-naive': [mazeSuite, { TOOLGAUGE_MODEL: 'sim:naive', TOOLGAUGE_MAZE_CATEGORIES: 'c1,c2' }],
  'maze-oracle': [
    mazeSuite,
    { TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_MAZE_CATEGORIES: 'c3,c4', TOOLGAUGE_MAZE_MODES: 'P0,P3' },
  ],
  'probe-parser-gap': [
    probeSuite,
    { TOOLGAUGE_MODEL: 'sim:fault?cause=parser_gap', TOOLGAUGE_PROBE_TRANSPORT: 'completions' },
  ],
  'probe-decision': [probeSuite, { TOOLGAUGE_MODEL: 'sim:fault?cause=decision_failure', TOOLGAUGE_PROBE_SPLIT: 'dev' }],
};

/** Every leaf of `want` equals the same path in `got`. */
function differences(want: unknown, got: unknown, path = ''): string[] {
  if (want && typeof want === 'object')
    return Object.entries(want as Record<string, unknown>).flatMap(([k, v]) =>
      differences(v, (got as Record<string, unknown> | undefined)?.[k], `${path}.${k}`),
    );
  return Object.is(want, got) ? [] : [`${path}: was ${JSON.stringify(want)}, now ${JSON.stringify(got)}`];
}

async function check(name: string): Promise<void> {
  const g = JSON.parse(readFileSync(fromRoot('fixtures', 'regression', `${name}.json`), 'utf8')) as Golden;
  const [suite, env] = RUNS[name]!;
  // The CPython sandbox: these fixtures are about scoring and statistics; the backends agree (harness/sandbox tests).
  const r = await runSuite(suite, {
    ...env,
    TOOLGAUGE_SANDBOX: 'python',
    TOOLHOP_ALLOW_DATASET_EXEC: '1',
    TOOLGAUGE_OUT_DIR: tempDir(`regression-${name}`),
    TOOLGAUGE_CONCURRENCY: '8',
  });
  const s = r.finalized.summary;
  expect(
    [
      ...differences(g.metrics, s.metrics, 'metrics'),
      ...differences(g.breakdowns, s.breakdowns, 'breakdowns'),
      ...differences(g.counts, s.counts, 'counts'),
    ],
    name,
  ).toEqual([]);
}

describe('the same numbers as before the suite kit (fixed seeds, simulator)', () => {
  it('ToolHop: sim:coin?p=0.6 with 3 trials, and sim:wrong', async () => {
    await check('toolhop-coin');
    await check('toolhop-wrong');
  });
  it('Maze: sim:naive on C1–C2 in every mode, sim:oracle on C3–C4 in P0 and P3', async () => {
    await check('maze-naive');
    await check('maze-oracle');
  });
  it('Probe: parser gaps over completions, decision failures over chat', async () => {
    await check('probe-parser-gap');
    await check('probe-decision');
  });
});
