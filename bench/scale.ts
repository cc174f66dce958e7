// `npm run bench:scale`: how toolgauge's cost grows with the number of instances. A generated describeEval file of n
// arithmetic cases (one tool call each) runs on the built-in simulator (`sim:oracle`, 0 ms latency,
// `--concurrency 64`) for n = 10 (the fixed cost), 1,000 and 10,000 (100,000 with `--max 100000`, run and resumed
// with `--parts 10`). For each n:
//
//   run        wall, CPU-s of the whole process tree (cgroup cpuacct) and per instance, peak PSS of the tree (the sum of
//              /proc/<pid>/smaps_rollup Pss over the tree, sampled every 250 ms); sizes of summary.json, report.md and
//              the journal
//   report     `toolgauge report DIR`: the journal read back, summary.json and report.md written again
//   resume     the same run SIGKILLed once half the journal's lines exist, then `--resume`: the resume's wall and CPU
//   shards     8 eval files of n/8 cases, `--shard i/8 --blob-dir B` for i = 1..8 one after another (CPU summed),
//              then `--merge-reports B`
//   compare    `report A B --compare` of the run and the resumed one
//   view       `toolgauge view A --export FILE.html`: wall, CPU and the page's size
//
// `--latency 50` adds runs at 50 ms per model request (n ≤ 10,000 unless `--sizes` names more). Writes
// bench/records/scale.json (unless `--no-record`) and docs/benchmarks-scale.svg (CPU-ms per instance against n).
//
// `--sizes 100000` runs only those n (with `--latency-only`, only the latency runs); `--record scale-added-NAME`
// (`scale-toolhop-added-NAME`) writes their figures to that record instead of the sweep's: points measured apart from
// the sweep. The chart is drawn from the sweep's record with every such record's points added (bench/scale-chart.ts).
//
// `--toolhop` measures ToolHop instead: the 182 rows of ../shared/data/toolhop/ToolHop.sample.json (the bundled sample
// without it) with `--trials K`, K the smallest that gives at least n runs, n = 1,000 and 10,000 (100,000 with
// `--max 100000`), each run a row's whole tool chain in the sandbox (pyodide, the default); run, `report DIR`, a
// kill at half the journal and `--resume`, `report A B --compare` and `view --export` as above, no shards. Writes
// bench/records/scale-toolhop.json.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../harness/core/paths.ts';
import { BUNDLED_SAMPLE } from '../harness/toolhop/dataset.ts';
import { accountedRun, round } from './lib.ts';
import { writeRecord } from './record.ts';
import { chartFigures, chartSeries, scaleChart } from './scale-chart.ts';
import { countLines } from '../tests/helpers/count-lines.ts';

const { values } = parseArgs({
  options: {
    max: { type: 'string', default: '10000' },
    latency: { type: 'string' },
    'no-record': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    toolhop: { type: 'boolean', default: false },
    sizes: { type: 'string' },
    'latency-only': { type: 'boolean', default: false },
    record: { type: 'string' },
  },
});
const max = Number(values.max);
if (![1000, 10000, 100000].includes(max)) throw new Error('--max: 1000, 10000 or 100000');
const latency = values.latency === undefined ? null : Number(values.latency);
if (latency !== null && !(latency > 0)) throw new Error('--latency: a positive number of milliseconds');
const SIZES = values.sizes
  ? values.sizes.split(',').map((x) => {
      const n = Number(x);
      if (![10, 1000, 10000, 100000].includes(n)) throw new Error(`--sizes: 10, 1000, 10000 or 100000, not '${x}'`);
      return n;
    })
  : [10, 1000, 10000, 100000].filter((n) => n <= max);
if (values['latency-only'] && latency === null) throw new Error('--latency-only needs --latency');
const CONCURRENCY = '64';
const BIN = fromRoot('bin', 'toolgauge.mjs');
const SHARED_TOOLHOP = fromRoot('..', 'shared', 'data', 'toolhop', 'ToolHop.sample.json');
const TOOLHOP_DATA = existsSync(SHARED_TOOLHOP) ? SHARED_TOOLHOP : BUNDLED_SAMPLE;
const SUITE = values.toolhop ? 'toolhop' : 'eval';
/** The sweep's record; `--record` names a record for points measured apart from it. */
const SWEEP = SUITE === 'toolhop' ? 'scale-toolhop' : 'scale';
const RECORD = values.record ?? SWEEP;
if (RECORD !== SWEEP && !RECORD.startsWith(`${SWEEP}-added-`))
  throw new Error(`--record: ${SWEEP}-added-<name> (a point its chart adds to the sweep's), not '${RECORD}'`);

/**
 * The eval file: n cases, each "a plus b" or "a times b" answered with one tool call (the simulator plays it). With
 * `part` k of 8, the eval `scale-k` holds only the cases i with i % 8 = k - 1.
 */
function evalFile(dir: string, n: number, part?: number): string {
  const name = part ? `scale-${part}` : 'scale';
  const file = join(dir, `${name}.eval.ts`);
  writeFileSync(
    file,
    `import { describeEval, scorers, toolLoop } from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))};
const number = { type: 'number' };
const cases = Array.from({ length: ${n} }, (_, i) => i).filter((i) => ${part ? `i % 8 === ${part - 1}` : 'true'}).map((i) => {
  const [a, b] = [i % 97, (i * 7) % 89];
  const add = i % 2 === 1;
  return {
    id: \`case-\${i}\`,
    input: \`What is \${a} \${add ? 'plus' : 'times'} \${b}?\`,
    expected: String(add ? a + b : a * b),
    expectedTools: [{ name: add ? 'add' : 'multiply', arguments: { a, b } }],
    tags: { op: add ? 'add' : 'mul' },
  };
});
describeEval(${JSON.stringify(name)}, {
  data: async () => cases,
  tools: [
    { name: 'multiply', description: 'Multiply two numbers',
      parameters: { type: 'object', properties: { a: number, b: number }, required: ['a', 'b'] },
      run: ({ a, b }) => String(a * b) },
    { name: 'add', description: 'Add two numbers',
      parameters: { type: 'object', properties: { a: number, b: number }, required: ['a', 'b'] },
      run: ({ a, b }) => String(a + b) },
  ],
  task: toolLoop({ system: 'Use the tools for arithmetic. End with <answer>…</answer>.', maxTurns: 5 }),
  scorers: [scorers.answerMatches()],
  threshold: 1,
});
`,
  );
  return file;
}

/** A large eval runs in parts of 10^4 cases (`--parts`, docs/eval.md#large-evals): the worker holds one part's tests. */
const PART_SIZE = 10_000;
function partsFlag(n: number): string[] {
  const parts = Math.round(n / PART_SIZE);
  return parts > 1 ? ['--parts', String(parts)] : [];
}

const ENV: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env))
  if (v !== undefined && !/^(TOOLGAUGE_|TOOLHOP_|OPENAI_|VITEST|NODE_OPTIONS)/.test(k)) ENV[k] = v;
Object.assign(ENV, { FORCE_COLOR: '0', NO_COLOR: '1' });
// ToolHop's tools are the dataset's own Python, run in the sandbox only with this consent (docs/toolhop.md).
if (values.toolhop) ENV.TOOLHOP_ALLOW_DATASET_EXEC = '1';

interface Measured {
  wallS: number;
  cpuS: number;
  pssMb: number;
}

async function tg(args: string[], cwd: string, what: string): Promise<Measured> {
  const r = await accountedRun(BIN, args, ENV, cwd);
  if (r.code !== 0) throw new Error(`${what}: exit ${r.code}\n${r.stderr.slice(-3000)}`);
  if (r.cpuS === null) throw new Error('CPU accounting needs root and /sys/fs/cgroup/cpuacct');
  return { wallS: r.wallMs / 1000, cpuS: r.cpuS, pssMb: r.peakTreePssMb };
}

const kib = (file: string) => statSync(file).size / 1024;

/** Start the run, SIGKILL its whole process group once the journal holds `at` lines; returns the lines kept. */
async function killAt(args: string[], cwd: string, journal: string, at: number): Promise<number> {
  const child = spawn('node', [BIN, ...args], { cwd, env: ENV, detached: true, stdio: 'ignore' });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  let done = false;
  void exited.then(() => (done = true));
  // Counting lines reads the journal whole; every 100 ms is cheap next to the run at these sizes.
  while (!done && countLines(journal) < at) await new Promise((r) => setTimeout(r, 100));
  if (done) throw new Error(`the run to kill ended before its journal reached ${at} lines`);
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
  return countLines(journal);
}

/** A run's own figures: time, CPU per instance, memory, and the sizes of what it wrote. */
function runRow(run: Measured, out: string, instances: number): Record<string, number> {
  return {
    wall_s: run.wallS,
    cpu_s: run.cpuS,
    cpu_ms_per_instance: (run.cpuS / instances) * 1000,
    peak_pss_mb: run.pssMb,
    summary_kib: kib(join(out, 'summary.json')),
    report_kib: kib(join(out, 'report.md')),
    journal_kib: kib(join(out, 'instances.jsonl')),
  };
}

/** `report DIR` of the run, into `row`. */
async function measureReport(row: Record<string, number>, out: string, dir: string, what: string) {
  const rep = await tg(['report', out], dir, `${what} report`);
  Object.assign(row, { report_wall_s: rep.wallS, report_cpu_s: rep.cpuS, report_pss_mb: rep.pssMb });
}

/** The run again into `killed`, SIGKILLed at half its journal, then `--resume`d: its figures into `row`. */
async function measureResume(
  row: Record<string, number>,
  args: string[],
  killed: string,
  dir: string,
  instances: number,
  what: string,
) {
  const journal = join(killed, 'instances.jsonl');
  const kept = await killAt([...args, '--out-dir', killed], dir, journal, instances / 2);
  const res = await tg([...args, '--out-dir', killed, '--resume'], dir, `${what} resume`);
  if (countLines(journal) !== instances) throw new Error(`${what}: the resumed journal is not whole`);
  Object.assign(row, {
    resume_kept: kept,
    resume_wall_s: res.wallS,
    resume_cpu_s: res.cpuS,
    resume_cpu_ms_per_ran: (res.cpuS / (instances - kept)) * 1000,
  });
}

/** `report A B --compare` of the run and the second one, then `view --export` of the run: into `row`. */
async function measureCompareAndView(
  row: Record<string, number>,
  out: string,
  second: string,
  dir: string,
  what: string,
) {
  const cmp = await tg(['report', out, second, '--compare', '--out-dir', join(dir, 'compare')], dir, `${what} compare`);
  Object.assign(row, { compare_wall_s: cmp.wallS, compare_cpu_s: cmp.cpuS, compare_pss_mb: cmp.pssMb });
  const html = join(dir, 'view.html');
  const view = await tg(['view', out, '--export', html], dir, `${what} view`);
  Object.assign(row, { view_wall_s: view.wallS, view_cpu_s: view.cpuS, view_pss_mb: view.pssMb, view_kib: kib(html) });
}

async function measure(n: number, ms: number, root: string) {
  const dir = join(root, `n${n}-l${ms}`);
  mkdirSync(dir, { recursive: true });
  const file = evalFile(dir, n);
  const model = `sim:oracle?latency_ms=${ms}`;
  const base = ['eval', file, '--model', model, '--concurrency', CONCURRENCY, ...partsFlag(n)];
  const out = join(dir, 'run');
  const run = await tg([...base, '--out-dir', out], dir, `n=${n} run`);
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
    counts: { instances: number };
    metrics: { pass_rate: { value: number } };
  };
  if (summary.counts.instances !== n || summary.metrics.pass_rate.value !== 1)
    throw new Error(`n=${n}: expected ${n} passing instances, got ${JSON.stringify(summary.counts)}`);
  const row = runRow(run, out, n);
  log(n, ms, 'run', row);
  if (ms > 0) return row;

  await measureReport(row, out, dir, `n=${n}`);

  // The second run for the comparison: the killed and resumed one (at n = 10, too short to kill, a plain run).
  const killed = join(dir, 'killed');
  if (n < 1000) await tg([...base, '--out-dir', killed], dir, `n=${n} second run`);
  else await measureResume(row, base, killed, dir, n, `n=${n}`);

  // Vitest shards test files, and one eval file is one test file (`--shard 2/8` of it is refused), so the sharded
  // run is 8 eval files of n/8 cases each, every shard running one of them.
  const sharded = join(dir, 'sharded');
  mkdirSync(sharded);
  const parts = Array.from({ length: 8 }, (_, k) => evalFile(sharded, n, k + 1));
  const shardBase = ['eval', ...parts, '--model', model, '--concurrency', CONCURRENCY];
  const blobs = join(sharded, 'blobs');
  let shardCpu = 0;
  let shardWall = 0;
  for (let i = 1; i <= 8; i++) {
    const s = await tg([...shardBase, '--shard', `${i}/8`, '--blob-dir', blobs], sharded, `n=${n} shard ${i}/8`);
    shardCpu += s.cpuS;
    shardWall += s.wallS;
  }
  rmSync(join(sharded, 'results'), { recursive: true, force: true });
  const merge = await tg([...shardBase, '--merge-reports', blobs], sharded, `n=${n} merge`);
  const mergedInstances = parts
    .map((_, k) => JSON.parse(readFileSync(join(sharded, 'results', `scale-${k + 1}`, 'summary.json'), 'utf8')))
    .reduce((sum, s: { counts: { instances: number } }) => sum + s.counts.instances, 0);
  if (mergedInstances !== n) throw new Error(`n=${n}: the merge holds ${mergedInstances} instances`);
  Object.assign(row, {
    shards_wall_s: shardWall,
    shards_cpu_s: shardCpu,
    merge_wall_s: merge.wallS,
    merge_cpu_s: merge.cpuS,
    merge_pss_mb: merge.pssMb,
  });

  await measureCompareAndView(row, out, killed, dir, `n=${n}`);
  log(n, ms, 'all', row);
  return row;
}

/**
 * ToolHop at about n runs: the data's rows, each `--trials K` times (K = ceil(n / rows)); the journal holds one line
 * per run. Per instance below means per run (a row's trial).
 */
async function measureToolhop(n: number, ms: number, root: string) {
  const dir = join(root, `toolhop-n${n}-l${ms}`);
  mkdirSync(dir, { recursive: true });
  const rows = (JSON.parse(readFileSync(TOOLHOP_DATA, 'utf8')) as unknown[]).length;
  const trials = Math.ceil(n / rows);
  const runs = rows * trials;
  const base = ['toolhop', '--data', TOOLHOP_DATA, '--limit', String(rows), '--model', `sim:oracle?latency_ms=${ms}`];
  const flags = ['--concurrency', CONCURRENCY, '--trials', String(trials)];
  const out = join(dir, 'run');
  const run = await tg([...base, ...flags, '--out-dir', out], dir, `toolhop n=${n} run`);
  const journal = join(out, 'instances.jsonl');
  if (countLines(journal) !== runs) throw new Error(`toolhop n=${n}: expected ${runs} journal lines`);
  const row = { runs, trials, ...runRow(run, out, runs) };
  log(n, ms, 'toolhop run', row);
  if (ms > 0) return row;

  await measureReport(row, out, dir, `toolhop n=${n}`);
  const killed = join(dir, 'killed');
  await measureResume(row, [...base, ...flags], killed, dir, runs, `toolhop n=${n}`);
  await measureCompareAndView(row, out, killed, dir, `toolhop n=${n}`);
  log(n, ms, 'toolhop all', row);
  return row;
}

function log(n: number, ms: number, what: string, row: Record<string, number>) {
  const parts = Object.entries(row).map(([k, v]) => `${k}=${round(v, 3)}`);
  console.log(`n=${n} latency=${ms}ms ${what}: ${parts.join(' ')}`);
}

const figures: Record<string, number> = {};
const results: Array<{ n: number; ms: number; row: Record<string, number> }> = [];

// Figures are printed as integers (bench/record.ts), so each is kept in a unit where that is precise enough:
// milliseconds, microseconds per instance, KiB, MiB.
const UNIT: Record<string, [string, number]> = {
  wall_s: ['wall_ms', 1000],
  cpu_s: ['cpu_ms', 1000],
  cpu_ms_per_instance: ['cpu_us_per_instance', 1000],
  resume_cpu_ms_per_ran: ['resume_cpu_us_per_ran', 1000],
};
function save() {
  for (const { n, ms, row } of results)
    for (const [k, v] of Object.entries(row)) {
      const [name, scale] = UNIT[k] ?? (k.endsWith('_s') ? [k.replace(/_s$/, '_ms'), 1000] : [k, 1]);
      figures[`n${n}${ms ? `_l${ms}` : ''}_${name}`] = Math.round(v * scale);
    }

  const svg = scaleChart(
    chartSeries(chartFigures(SWEEP, { name: RECORD, figures })),
    SUITE === 'toolhop'
      ? {
          title: 'toolgauge toolhop: CPU per run against n (sim:oracle, --concurrency 64, pyodide)',
          valueLabel: 'CPU-ms per run',
        }
      : {
          title: 'toolgauge eval: CPU per instance against n (sim:oracle, --concurrency 64)',
          valueLabel: 'CPU-ms per instance',
        },
  );
  if (!values['no-record']) {
    writeFileSync(fromRoot('docs', `benchmarks-${SWEEP}.svg`), svg);
    const rec = writeRecord(RECORD, figures);
    console.log(`bench/records/${RECORD}.json (${rec.date}, ${rec.commit.slice(0, 7)}, load ${rec.machine.load1})`);
  }
}

const root = mkdtempSync(join(tmpdir(), 'tg-bench-scale-'));
try {
  const one = SUITE === 'toolhop' ? measureToolhop : measure;
  // ToolHop's fixed cost is bench/toolhop.ts's: its series starts at 1,000 runs.
  for (const n of values['latency-only'] ? [] : SIZES.filter((s) => SUITE === 'eval' || s >= 1000)) {
    results.push({ n, ms: 0, row: await one(n, 0, root) });
    save();
  }
  if (latency !== null)
    for (const n of SIZES.filter((s) => s >= 1000 && (values.sizes !== undefined || s <= 10000))) {
      results.push({ n, ms: latency, row: await one(n, latency, root) });
      save();
    }
} finally {
  if (values.keep) console.log(`kept: ${root}`);
  else rmSync(root, { recursive: true, force: true });
}
