// ToolHop benchmark: `npx tsx bench/toolhop.ts [--data FILE] [--limit N]` (default: the 182 real rows when
// ../shared/data is present, else the bundled sample). Three runs through the real CLI on the simulator:
//  1. sim:oracle, zero latency: wall time, instances/s, tool calls/s, peak RSS of the whole process tree;
//  2. sim:oracle?latency_ms=200 with --concurrency 16: wall time against the ideal, sum of model latencies / 16;
//  3. the sandbox alone (worker start, warm call median/p95) via harness/sandbox/bench.ts;
//  4. the fixed cost of a run, apart from the per-row cost: `--help` (loading the CLI), an empty run (--limit 0:
//     Vitest, configuration, simulator, sandbox start) and a 5-row run, each the median of 3, with the CPU time of the
//     whole process tree; the per-row cost is (wall of the full run − wall of 5 rows) / (rows − 5). The 5-row run is
//     timed again while two busy loops (outside the run's cgroup) compete for the two cores, as on a shared CI host.
//  5. side by side with the reference runner (bench/toolhop-reference.ts): the same rows against one `toolgauge sim`,
//     sides alternating, medians over --rounds (default 3), printed as a Markdown table. The reference is read from
//     TOOLGAUGE_REF_TOOLHOP (a checkout outside this repository) and run with TOOLGAUGE_REF_PYTHON; without it that
//     side is skipped, visibly. `--baseline DIR` adds another toolgauge checkout as a column; `--side-by-side` runs
//     only this part; `--ref-latency` runs the reference at 200 ms too (minutes) instead of estimating it. It prints
//     what the reference ran with (interpreter, where its modules came from — stand-ins named —, concurrency), and
//     `--record NAME` writes the medians to bench/records/NAME.json (docs/benchmarks.md, "ToolHop's fixed cost").
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { fromRoot } from '../harness/core/paths.ts';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import { accountedRun, round, timedToolgauge } from './lib.ts';
import { writeRecord } from './record.ts';
import { recordedCommand, referenceSetupLines, sideBySide, sideBySideFigures } from './toolhop-reference.ts';

const shared = fromRoot('..', 'shared', 'data', 'toolhop', 'ToolHop.sample.json');
const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    limit: { type: 'string' },
    'skip-latency': { type: 'boolean' },
    'side-by-side': { type: 'boolean' },
    rounds: { type: 'string' },
    baseline: { type: 'string' },
    'ref-latency': { type: 'boolean' },
    record: { type: 'string' },
  },
});
const data = values.data ?? (existsSync(shared) ? shared : fromRoot('cases', 'toolhop', 'sample.json'));
const limit = values.limit ?? '182';
const env = { ...process.env, TOOLHOP_ALLOW_DATASET_EXEC: '1' } as Record<string, string>;

function traces(out: string): Array<{
  started_at: string;
  wall_ms: number;
  tool_executions: unknown[];
  model_calls: Array<{ latencyMs: number }>;
}> {
  const dir = join(out, 'traces');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
}

async function zeroLatency() {
  const out = mkdtempSync(join(tmpdir(), 'bench-th-'));
  const r = await accountedRun(
    fromRoot('bin', 'toolgauge.mjs'),
    ['toolhop', '--data', data, '--limit', limit, '--model', 'sim:oracle', '--concurrency', '16', '--out-dir', out],
    { ...env, FORCE_COLOR: '0' },
    tmpdir(),
  );
  const ts = traces(out);
  const toolCalls = ts.reduce((s, t) => s + t.tool_executions.length, 0);
  const acc = /accuracy ([\d.]+)/.exec(r.stdout)?.[1];
  return {
    exit: r.code,
    instances: ts.length,
    accuracy: acc ? Number(acc) : null,
    wall_s: round(r.wallMs / 1000),
    cpu_s_all_processes: r.cpuS === null ? null : round(r.cpuS),
    instances_per_s: round(ts.length / (r.wallMs / 1000)),
    tool_calls: toolCalls,
    tool_calls_per_s: round(toolCalls / (r.wallMs / 1000)),
    peak_tree_rss_mb: r.peakTreeRssMb,
    peak_tree_pss_mb: r.peakTreePssMb,
  };
}

async function latency200() {
  const out = mkdtempSync(join(tmpdir(), 'bench-th-lat-'));
  const r = await timedToolgauge(
    [
      'toolhop',
      '--data',
      data,
      '--limit',
      limit,
      '--model',
      'sim:oracle?latency_ms=200',
      '--concurrency',
      '16',
      '--out-dir',
      out,
    ],
    env,
  );
  const ts = traces(out);
  const latencySum = ts.reduce((s, t) => s + t.model_calls.reduce((a, c) => a + c.latencyMs, 0), 0);
  const ideal = latencySum / 16;
  const start = Math.min(...ts.map((t) => Date.parse(t.started_at)));
  const end = Math.max(...ts.map((t) => Date.parse(t.started_at) + t.wall_ms));
  return {
    exit: r.code,
    model_calls: ts.reduce((s, t) => s + t.model_calls.length, 0),
    ideal_s: round(ideal / 1000),
    run_span_s: round((end - start) / 1000),
    run_span_over_ideal: round((end - start) / ideal),
    process_wall_s: round(r.wallMs / 1000),
    process_wall_over_ideal: round(r.wallMs / ideal),
  };
}

/** Wall and CPU seconds of one CLI run: the whole process tree, sandbox workers included (bench/lib.ts). */
async function cpuTimed(args: string[]): Promise<{ wall_s: number; cpu_s: number | null; code: number }> {
  const r = await accountedRun(fromRoot('bin', 'toolgauge.mjs'), [...args], { ...env, FORCE_COLOR: '0' }, tmpdir());
  return { wall_s: round(r.wallMs / 1000), cpu_s: r.cpuS === null ? null : round(r.cpuS), code: r.code };
}

async function median3(args: () => string[]) {
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await cpuTimed(args()));
  const mid = <T>(xs: T[], f: (x: T) => number) => [...xs].map(f).sort((a, b) => a - b)[1]!;
  return {
    wall_s: mid(runs, (x) => x.wall_s),
    cpu_s: runs.some((x) => x.cpu_s === null) ? null : mid(runs, (x) => x.cpu_s!),
    exit: runs.map((x) => x.code),
  };
}

/** Run `f` while `n` processes spin on the CPU; they are killed however `f` ends. */
async function underBusyLoops<T>(n: number, f: () => Promise<T>): Promise<T> {
  const loops = Array.from({ length: n }, () => execa(process.execPath, ['-e', 'for (;;) {}'], { reject: false }));
  try {
    return await f();
  } finally {
    for (const l of loops) l.kill('SIGKILL');
    await Promise.all(loops);
  }
}

async function fixedCost(fullWallS: number | null, rows: number) {
  const run = (n: number) => () => [
    'toolhop',
    '--data',
    data,
    '--limit',
    String(n),
    '--model',
    'sim:oracle',
    '--out-dir',
    mkdtempSync(join(tmpdir(), 'bench-th-fixed-')),
  ];
  const help = await median3(() => ['--help']);
  const empty = await median3(run(0));
  const five = await median3(run(5));
  const fiveBusy = await underBusyLoops(2, () => median3(run(5)));
  return {
    cli_help: help,
    empty_run: empty,
    five_rows: five,
    five_rows_two_busy_loops: fiveBusy,
    per_row_s: fullWallS !== null && rows > 5 ? round((fullWallS - five.wall_s) / (rows - 5), 4) : null,
  };
}

async function sandbox() {
  const r = await execa(
    'npx',
    ['tsx', fromRoot('harness', 'sandbox', 'bench.ts'), '--calls', '1000', '--starts', '3', '--backend', 'pyodide'],
    { reject: false, cwd: fromRoot() },
  );
  const text = String(r.stdout);
  try {
    return JSON.parse(text.slice(text.indexOf('{'))) as unknown;
  } catch {
    return text.trim();
  }
}

async function compared() {
  const r = await sideBySide({
    data,
    rows: Number(limit),
    rounds: Number(values.rounds ?? 3),
    baseline: values.baseline,
    referenceLatency: !!values['ref-latency'],
    env,
  });
  for (const s of r.skipped) console.log(`skipped: ${s}`);
  if (r.reference) console.log(`reference ran with: ${JSON.stringify(r.reference, null, 2)}`);
  if (values.record) {
    const rec = writeRecord(
      values.record,
      sideBySideFigures(r),
      recordedCommand(process.argv.slice(2)),
      r.reference ? referenceSetupLines(r.reference) : undefined,
    );
    console.log(`recorded bench/records/${rec.bench}.json`);
  }
  console.log(
    `\nToolHop side by side (simulator, not a model result; ${new Date().toISOString().slice(0, 10)}, load average ${r.load.join(', ')}; medians of ${r.rounds} alternating rounds):\n\n${r.table}\n`,
  );
  return r;
}

if (values['side-by-side']) {
  const r = await compared();
  writeFileAtomic(
    fromRoot('results', 'bench', 'toolhop-side-by-side.json'),
    JSON.stringify({ data, node: process.version, ...r }, null, 2) + '\n',
  );
} else {
  const zero = await zeroLatency();
  const result = {
    data,
    limit: Number(limit),
    node: process.version,
    zero_latency: zero,
    fixed_cost: await fixedCost(zero.exit === 0 ? zero.wall_s : null, zero.instances),
    ...(values['skip-latency'] ? {} : { latency_200ms_concurrency_16: await latency200() }),
    sandbox: await sandbox(),
  };
  writeFileAtomic(fromRoot('results', 'bench', 'toolhop.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result, null, 2));
  const r = await compared();
  writeFileAtomic(
    fromRoot('results', 'bench', 'toolhop-side-by-side.json'),
    JSON.stringify({ data, node: process.version, ...r }, null, 2) + '\n',
  );
}
