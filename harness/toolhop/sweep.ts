import { join } from 'node:path';
import { writeFileAtomic } from '../core/jsonl.ts';
import { runSuite } from '../launch/run-suite.ts';
import { compareRuns, type Comparison } from '../report/compare.ts';
import { fmtEstimate, table } from '../report/markdown.ts';
import { flattenMetrics, SIMULATOR_NOTICE, type EstimateJson } from '../report/summary.ts';
import { barChart, estimateBar } from '../report/svg.ts';
import { toolhopAggregator } from './aggregator.ts';
import type { ToolhopMeta } from './meta.ts';
import type { Comm, Topology } from './settings.ts';
import { toolhopSuite } from './suite.ts';

/** One cell of the grid: a topology, a team size (teams only) and a communication format (teams only). */
export interface SweepCell {
  topology: Topology;
  agents?: number;
  comm?: Comm;
}

export function cellLabel(c: SweepCell): string {
  return c.topology === 'single' ? 'single' : `${c.topology}-${c.agents ?? 'default'}-${c.comm ?? 'freeform'}`;
}

/** The grid: `single` once (the baseline), then every team topology × size × format (no sizes: each team's default). */
export function sweepGrid(
  topologies: readonly Topology[],
  agents: readonly number[] | undefined,
  comms: readonly Comm[],
): SweepCell[] {
  const cells: SweepCell[] = [{ topology: 'single' }];
  const sizes: Array<number | undefined> = agents?.length ? [...agents] : [undefined];
  for (const t of topologies)
    if (t !== 'single')
      for (const a of sizes)
        for (const c of comms) cells.push({ topology: t, ...(a !== undefined ? { agents: a } : {}), comm: c });
  return cells;
}

/** A cell's environment: the sweep's, with the cell's topology, size and format (and its folder) set. */
export function cellEnvOf(env: NodeJS.ProcessEnv, cell: SweepCell, dir: string): NodeJS.ProcessEnv {
  return {
    ...env,
    TOOLHOP_TOPOLOGY: cell.topology,
    TOOLGAUGE_OUT_DIR: dir || env.TOOLGAUGE_OUT_DIR,
    ...(cell.agents !== undefined ? { TOOLHOP_TEAM_SIZE: String(cell.agents) } : { TOOLHOP_TEAM_SIZE: '' }),
    ...(cell.comm && cell.topology !== 'single' ? { TOOLHOP_COMM: cell.comm } : { TOOLHOP_COMM: '' }),
  };
}

interface CellRun {
  cell: SweepCell;
  label: string;
  dir: string;
  metrics: Record<string, EstimateJson>;
  metas: ToolhopMeta[];
  wallMs: number;
}

export interface SweepResult {
  cells: CellRun[];
  comparisons: Comparison[];
  markdown: string;
}

/**
 * `toolgauge toolhop sweep`: every cell of the grid on the same rows (each a full ToolHop run in its own folder,
 * through the suite kit), then one comparison: accuracy, strict accuracy and tokens per correct answer per cell with
 * CIs, each team paired against `single` on the shared rows (Holm over the whole table), and a chart.
 */
export async function runSweep(
  cells: readonly SweepCell[],
  env: NodeJS.ProcessEnv,
  outDir: string,
  log: (line: string) => void = () => undefined,
): Promise<SweepResult> {
  const done: SweepResult['cells'] = [];
  for (const cell of cells) {
    const label = cellLabel(cell);
    const dir = join(outDir, label);
    const cellEnv = cellEnvOf(env, cell, dir);
    const t0 = performance.now();
    const run = await runSuite(toolhopSuite, cellEnv);
    const wallMs = performance.now() - t0;
    const metrics = flattenMetrics(run.finalized.summary.metrics);
    done.push({ cell, label, dir, metrics, metas: run.metas, wallMs });
    log(
      `  ${label.padEnd(36)} accuracy ${fmtEstimate(metrics.accuracy)}  tokens/correct ${fmtEstimate(metrics.tokens_per_correct, 0)}  ${(wallMs / 1000).toFixed(1)} s`,
    );
  }
  const runs = done.map((d) => ({
    label: d.label,
    dir: d.dir,
    suite: 'toolhop',
    datasetSha256: null,
    outcomes: toolhopAggregator.outcomes(d.metas),
  }));
  const comparisons = compareRuns(runs, { lowerIsBetter: toolhopAggregator.lowerIsBetter ?? [] });
  const simulated = String(env.TOOLGAUGE_MODEL ?? '').startsWith('sim:') && !env.OPENAI_BASE_URL;
  const md = sweepMarkdown(done, comparisons, simulated);
  writeFileAtomic(join(outDir, 'sweep.md'), md);
  writeFileAtomic(
    join(outDir, 'sweep.json'),
    JSON.stringify(
      {
        cells: done.map((d) => ({ label: d.label, cell: d.cell, dir: d.dir, wall_ms: d.wallMs, metrics: d.metrics })),
        comparisons,
      },
      null,
      2,
    ) + '\n',
  );
  const verdictOf = (label: string) =>
    comparisons.find((c) => c.candidate === label)?.results.find((r) => r.metric === 'accuracy')?.verdict;
  writeFileAtomic(
    join(outDir, 'sweep.svg'),
    barChart(
      done.map((d) => estimateBar(d.label, d.metrics.accuracy, d.label === 'single' ? 'baseline' : verdictOf(d.label))),
      { title: `ToolHop sweep: accuracy per cell (95% CI)${simulated ? ' — simulator' : ''}`, axisLabel: 'accuracy' },
    ),
  );
  return { cells: done, comparisons, markdown: md };
}

function sweepMarkdown(cells: CellRun[], comparisons: Comparison[], simulated: boolean): string {
  const verdict = (label: string, metric: string) => {
    const r = comparisons.find((c) => c.candidate === label)?.results.find((x) => x.metric === metric);
    return r ? `${r.diff >= 0 ? '+' : ''}${r.diff.toFixed(3)} ${r.verdict}` : '—';
  };
  const lines = ['# ToolHop sweep: topology × team size × communication format', ''];
  if (simulated) lines.push(`> **${SIMULATOR_NOTICE}**`, '');
  lines.push(
    'Every cell ran on the same rows. Teams are paired against `single` row by row (paired bootstrap CI of the difference and exact McNemar for accuracy, sign-flip for tokens; Holm over the whole table). `tokens` is the tokens a row cost (all agents); lower is better.',
    '',
    table(
      [
        'cell',
        'accuracy [95% CI]',
        'strict accuracy',
        'tokens / correct [95% CI]',
        'report parse rate',
        'wall',
        'accuracy vs single',
        'tokens vs single',
      ],
      cells.map((d) => [
        d.label,
        fmtEstimate(d.metrics.accuracy),
        fmtEstimate(d.metrics.strict_accuracy),
        fmtEstimate(d.metrics.tokens_per_correct, 0),
        d.metrics.report_parse_rate ? fmtEstimate(d.metrics.report_parse_rate) : '—',
        `${(d.wallMs / 1000).toFixed(1)} s`,
        d.label === 'single' ? 'baseline' : verdict(d.label, 'accuracy'),
        d.label === 'single' ? 'baseline' : verdict(d.label, 'tokens'),
      ]),
    ),
    '',
    '![accuracy per cell](sweep.svg)',
    '',
    "Folders: each cell's full run (summary.json, report.md, traces) is in `<out>/<cell>/`.",
    '',
  );
  return lines.join('\n');
}
