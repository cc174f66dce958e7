// ToolHop side by side with the reference runner (topologies/single/toolhop of the multi-agent framework), both
// against one `toolgauge sim` process, sides alternating in every round, the whole process tree of each run
// measured (wall, CPU through a cgroup where the host allows one, peak resident memory). The reference's code is
// never part of this repository: it is taken from the folder TOOLGAUGE_REF_TOOLHOP names (a checkout of the
// framework), run with TOOLGAUGE_REF_PYTHON (a Python with its dependencies: openai, huggingface_hub, pytz,
// dateutil, babel); without the folder that side is skipped and says so. `--baseline DIR` adds a column for
// another toolgauge checkout (e.g. the commit before a change), alternating with this one. What the reference ran
// with — the interpreter, where each of those modules was imported from (a stand-in outside the interpreter's
// site-packages is named as one), the runner file's hash, its one-row-at-a-time loop — is part of the result
// (describeReference), so a figure of the reference can be repeated.
import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fromRoot } from '../harness/core/paths.ts';
import { accountedRun, round } from './lib.ts';

export interface SideBySideOptions {
  data: string;
  rows: number;
  rounds: number;
  /** Another toolgauge checkout to alternate with (its bin/toolgauge.mjs). */
  baseline?: string;
  /** Run the reference at 200 ms too (sequential: about calls × 0.2 s, minutes); else estimated from its 0 ms run. */
  referenceLatency: boolean;
  env: Record<string, string>;
}

interface Measured {
  wall_s: number;
  cpu_s: number | null;
  /** Peak of the process tree's summed resident sets. */
  peak_mib: number;
  /** Peak of the tree's proportional set sizes: each shared page counted once (bench/lib.ts, treeMemoryMb). */
  peak_pss_mib: number;
  code: number;
  /** Model requests made (from the run's own files). */
  calls?: number;
  /** 200 ms runs: the run span over the ideal (model latency summed / concurrency). */
  span_over_ideal?: number;
  span_s?: number;
  ideal_s?: number;
}

type Side = 'reference' | 'toolgauge' | 'baseline';
type Config = '182/pyodide' | '182/python' | '5/pyodide' | '182/200ms';

const REF_RUNNER = join('topologies', 'single', 'toolhop', 'langgraph_toolhop.py');

/** A Hugging Face hub cache holding the data file as `bytedance-research/ToolHop` `data/ToolHop.json` (offline). */
function hubCache(data: string): string {
  const home = mkdtempSync(join(tmpdir(), 'bench-ref-hf-'));
  const repo = join(home, 'hub', 'datasets--bytedance-research--ToolHop');
  const rev = '0'.repeat(40);
  mkdirSync(join(repo, 'refs'), { recursive: true });
  mkdirSync(join(repo, 'snapshots', rev, 'data'), { recursive: true });
  writeFileSync(join(repo, 'refs', 'main'), rev);
  symlinkSync(data, join(repo, 'snapshots', rev, 'data', 'ToolHop.json'));
  return home;
}

/** One `toolgauge sim` process for the whole comparison; its URL once it listens. */
async function startSim(data: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [fromRoot('bin', 'toolgauge.mjs'), 'sim', '--data', data, '--policy', 'sim:oracle'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`toolgauge sim exited with ${code}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function toolgaugeArgs(bin: string, c: Config, o: SideBySideOptions, url: string, out: string): string[] {
  const rows = c.startsWith('5/') ? '5' : String(o.rows);
  const model = c === '182/200ms' ? 'sim:oracle?latency_ms=200' : 'sim:oracle';
  return [
    bin,
    'toolhop',
    '--data',
    o.data,
    '--limit',
    rows,
    '--base-url',
    url,
    '--model',
    model,
    '--concurrency',
    '16',
    '--sandbox',
    c === '182/python' ? 'python' : 'pyodide',
    '--out-dir',
    out,
  ];
}

async function runToolgauge(bin: string, c: Config, o: SideBySideOptions, url: string): Promise<Measured> {
  const out = mkdtempSync(join(tmpdir(), 'bench-side-tg-'));
  // The command itself, as `npx toolgauge` runs it (its shebang sets Node's flags).
  const [cmd, ...args] = toolgaugeArgs(bin, c, o, url, out);
  const r = await accountedRun(cmd!, args, { ...o.env, FORCE_COLOR: '0' }, tmpdir());
  const m: Measured = {
    wall_s: round(r.wallMs / 1000),
    cpu_s: r.cpuS === null ? null : round(r.cpuS),
    peak_mib: r.peakTreeRssMb,
    peak_pss_mib: r.peakTreePssMb,
    code: r.code !== 0 ? r.code : completed(resultsOf(out), c.startsWith('5/') ? '5' : String(o.rows)) ? 0 : 1,
  };
  if (c === '182/200ms') Object.assign(m, spanOf(out));
  return m;
}

/** From the traces: the span from the first row's start to the last row's end, against model latency / 16. */
function spanOf(out: string): Pick<Measured, 'span_s' | 'ideal_s' | 'span_over_ideal' | 'calls'> {
  const dir = join(out, 'traces');
  const ts = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map(
      (f) =>
        JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
          started_at: string;
          wall_ms: number;
          model_calls: Array<{ latencyMs: number }>;
        },
    );
  const ideal = ts.reduce((s, t) => s + t.model_calls.reduce((a, c) => a + c.latencyMs, 0), 0) / 16;
  const start = Math.min(...ts.map((t) => Date.parse(t.started_at)));
  const end = Math.max(...ts.map((t) => Date.parse(t.started_at) + t.wall_ms));
  return {
    span_s: round((end - start) / 1000),
    ideal_s: round(ideal / 1000),
    span_over_ideal: round((end - start) / ideal),
    calls: ts.reduce((s, t) => s + t.model_calls.length, 0),
  };
}

async function runReference(ref: string, c: Config, o: SideBySideOptions, url: string, hf: string): Promise<Measured> {
  const out = mkdtempSync(join(tmpdir(), 'bench-side-ref-'));
  const rows = c.startsWith('5/') ? '5' : String(o.rows);
  const env = {
    ...o.env,
    HF_HOME: hf,
    HF_HUB_OFFLINE: '1',
    VLLM_BASE_URL: url,
    MODEL_ID: c === '182/200ms' ? 'sim:oracle?latency_ms=200' : 'sim:oracle',
    TOOLHOP_ALLOW_DATASET_EXEC: '1',
  };
  const r = await accountedRun(
    o.env.TOOLGAUGE_REF_PYTHON ?? 'python3',
    [join(ref, REF_RUNNER), '--limit', rows, '--out-dir', out],
    env,
    ref,
  );
  const results = resultsOf(out);
  return {
    wall_s: round(r.wallMs / 1000),
    cpu_s: r.cpuS === null ? null : round(r.cpuS),
    peak_mib: r.peakTreeRssMb,
    peak_pss_mib: r.peakTreePssMb,
    code: r.code !== 0 ? r.code : completed(results, rows) ? 0 : 1,
    calls: results.reduce((s, x) => s + (x.n_llm_calls ?? 0), 0),
  };
}

type ResultRow = { correct?: boolean; n_llm_calls?: number };

function resultsOf(out: string): ResultRow[] {
  const file = join(out, 'results.jsonl');
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as ResultRow)
    : [];
}

/**
 * On sim:oracle every row must be answered right: a run that wrote fewer rows, or a wrong one, did not do the work
 * (the reference records a failed request as an empty answer, not as an error, so its exit code says nothing).
 */
function completed(results: ResultRow[], rows: string): boolean {
  return results.length === Number(rows) && results.every((x) => x.correct === true);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};

/** What the reference side ran with, as the bench found it (describeReference). */
export interface ReferenceSetup {
  runner: string;
  runner_sha256: string;
  python: string;
  python_version: string;
  /** Whether the interpreter runs in a virtual environment (sys.prefix differs from sys.base_prefix). */
  venv?: boolean;
  /** Each dependency: `version (site-packages)` or `stand-in at PATH` (imported from outside site-packages). */
  modules: Record<string, string>;
  /** The reference runner has no concurrency setting: one row after another, one model request at a time. */
  concurrency: string;
  env: Record<string, string>;
}

const REF_MODULES = ['openai', 'huggingface_hub', 'pytz', 'dateutil', 'babel'];

/** Ask the reference's Python what it imports the runner's dependencies from (run in the runner's folder). */
export function describeReference(ref: string, python: string, env: Record<string, string>): ReferenceSetup {
  const script = [
    'import importlib, importlib.metadata as md, json, site, sys, sysconfig',
    'roots = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages()]',
    'out = {"python": sys.executable, "version": sys.version.split()[0], "venv": sys.prefix != sys.base_prefix, "modules": {}}',
    `for name in ${JSON.stringify(REF_MODULES)}:`,
    '    try:',
    '        m = importlib.import_module(name)',
    '        f = getattr(m, "__file__", "") or ""',
    '        dist = {"dateutil": "python-dateutil", "huggingface_hub": "huggingface-hub"}.get(name, name)',
    '        if any(f.startswith(r) for r in roots):',
    '            out["modules"][name] = md.version(dist) + " (site-packages)"',
    '        else:',
    '            out["modules"][name] = "stand-in at " + f',
    '    except Exception as e:',
    '        out["modules"][name] = "missing: " + type(e).__name__',
    'print(json.dumps(out))',
  ].join('\n');
  const runner = join(ref, REF_RUNNER);
  const found = JSON.parse(
    execFileSync(python, ['-c', script], { cwd: dirname(runner), env: { ...process.env, ...env }, encoding: 'utf8' }),
  ) as { python: string; version: string; venv: boolean; modules: Record<string, string> };
  return {
    runner: REF_RUNNER,
    runner_sha256: createHash('sha256').update(readFileSync(runner)).digest('hex'),
    python: found.python,
    python_version: found.version,
    venv: found.venv,
    modules: found.modules,
    concurrency: '1 (the runner answers the rows one after another; it has no concurrency setting)',
    env: Object.fromEntries(
      ['PYTHONPATH', 'TOOLHOP_MAX_TURNS', 'TOOLHOP_TOOL_RESULT_CHAR_BUDGET'].map((k) => [k, env[k] ?? '(unset)']),
    ),
  };
}

export interface SideBySide {
  /** What the reference ran with (absent when its side was skipped). */
  reference?: ReferenceSetup;
  rounds: number;
  load: number[];
  runs: Record<Side, Partial<Record<Config, Measured[]>>>;
  table: string;
  skipped: string[];
}

export async function sideBySide(o: SideBySideOptions): Promise<SideBySide> {
  const ref = o.env.TOOLGAUGE_REF_TOOLHOP;
  const skipped: string[] = [];
  const haveRef = !!ref && existsSync(join(ref, REF_RUNNER));
  if (!ref)
    skipped.push(
      'reference: TOOLGAUGE_REF_TOOLHOP is not set (a checkout of the reference framework), so that side is skipped',
    );
  else if (!haveRef) skipped.push(`reference: ${join(ref, REF_RUNNER)} not found, so that side is skipped`);
  const sides: Side[] = [
    ...(haveRef ? (['reference'] as const) : []),
    'toolgauge',
    ...(o.baseline ? (['baseline'] as const) : []),
  ];
  const bins: Record<Side, string> = {
    reference: '',
    toolgauge: fromRoot('bin', 'toolgauge.mjs'),
    baseline: o.baseline ? join(o.baseline, 'bin', 'toolgauge.mjs') : '',
  };
  const configs: Config[] = ['182/pyodide', '182/python', '5/pyodide'];
  const runs: SideBySide['runs'] = { reference: {}, toolgauge: {}, baseline: {} };
  const load: number[] = [];
  const reference = haveRef ? describeReference(ref!, o.env.TOOLGAUGE_REF_PYTHON ?? 'python3', o.env) : undefined;
  const sim = await startSim(o.data);
  const hf = haveRef ? hubCache(o.data) : '';
  const once = async (side: Side, c: Config) => {
    const m =
      side === 'reference'
        ? await runReference(ref!, c, o, sim.url, hf)
        : await runToolgauge(bins[side], c, o, sim.url);
    (runs[side][c] ??= []).push(m);
    process.stderr.write(
      `  ${side.padEnd(9)} ${c.padEnd(12)} ${m.wall_s.toFixed(2)} s wall, ${m.cpu_s ?? '?'} CPU-s, ${m.peak_mib} MiB (PSS ${m.peak_pss_mib})${m.code ? ` (exit ${m.code})` : ''}${m.span_over_ideal ? `, span ${m.span_over_ideal}× ideal` : ''}\n`,
    );
  };
  try {
    for (let r = 0; r < o.rounds; r++) {
      load.push(round(loadavg()[0]!));
      process.stderr.write(`round ${r + 1}/${o.rounds} (load ${load.at(-1)})\n`);
      // Sides alternate within each configuration, and their order flips every round.
      const order = r % 2 ? [...sides].reverse() : sides;
      for (const c of configs)
        for (const side of order) if (side !== 'reference' || c !== '182/python') await once(side, c);
    }
    // The reference has no sandbox setting: its one 182-row run stands for both rows of the table.
    runs.reference['182/python'] = runs.reference['182/pyodide'];
    load.push(round(loadavg()[0]!));
    for (const side of sides) if (side !== 'reference' || o.referenceLatency) await once(side, '182/200ms');
  } finally {
    await sim.stop();
  }
  return { ...(reference ? { reference } : {}), rounds: o.rounds, load, runs, table: table(runs, sides, o), skipped };
}

function table(runs: SideBySide['runs'], sides: Side[], o: SideBySideOptions): string {
  const med = (side: Side, c: Config, f: (m: Measured) => number | null | undefined) => {
    const xs = (runs[side][c] ?? []).map(f).filter((x): x is number => typeof x === 'number');
    return xs.length ? median(xs) : null;
  };
  const failed = (side: Side, c: Config) => (runs[side][c] ?? []).some((m) => m.code !== 0);
  const fmt = (x: number | null, unit: string, d = 2) => (x === null ? 'n/a' : `${x.toFixed(d)}${unit}`);
  const cols = sides.filter((s) => s !== 'reference');
  const hasRef = sides.includes('reference');
  const ratio = (a: number | null, b: number | null) =>
    a === null || b === null || b === 0 ? 'n/a' : `${(a / b).toFixed(1)}×`;
  const head = `| | ${hasRef ? 'reference | ' : ''}${cols.map((s) => (s === 'baseline' ? 'toolgauge (baseline)' : 'toolgauge')).join(' | ')}${hasRef ? ` | ${cols.map((s) => (s === 'baseline' ? 'ratio (baseline)' : 'ratio')).join(' | ')}` : ''} |`;
  const lines = [
    head,
    `|---|${hasRef ? '---|' : ''}${cols.map(() => '---|').join('')}${hasRef ? cols.map(() => '---|').join('') : ''}`,
  ];
  const row = (label: string, c: Config, f: (m: Measured) => number | null | undefined, unit: string, d = 2) => {
    const ref = hasRef ? med('reference', c, f) : null;
    const cells = cols.map((s) => `${fmt(med(s, c, f), unit, d)}${failed(s, c) ? ' (failed)' : ''}`);
    lines.push(
      `| ${label} | ${hasRef ? `${fmt(ref, unit, d)}${failed('reference', c) ? ' (failed)' : ''} | ` : ''}${cells.join(' | ')}${hasRef ? ` | ${cols.map((s) => ratio(med(s, c, f), ref)).join(' | ')}` : ''} |`,
    );
  };
  row(`${o.rows} rows, 0 ms, pyodide sandbox (default), c16`, '182/pyodide', (m) => m.wall_s, ' s');
  row(`${o.rows} rows, 0 ms, CPython sandbox, c16`, '182/python', (m) => m.wall_s, ' s');
  row('5 rows', '5/pyodide', (m) => m.wall_s, ' s');
  row('5 rows, peak memory (RSS summed)', '5/pyodide', (m) => m.peak_mib, ' MiB', 0);
  row('5 rows, peak memory (PSS)', '5/pyodide', (m) => m.peak_pss_mib, ' MiB', 0);
  row(`CPU for ${o.rows} rows (pyodide)`, '182/pyodide', (m) => m.cpu_s, ' CPU-s');
  row(`CPU for ${o.rows} rows (CPython)`, '182/python', (m) => m.cpu_s, ' CPU-s');
  row(`peak memory, ${o.rows} rows (pyodide, RSS summed)`, '182/pyodide', (m) => m.peak_mib, ' MiB', 0);
  row(`peak memory, ${o.rows} rows (pyodide, PSS)`, '182/pyodide', (m) => m.peak_pss_mib, ' MiB', 0);
  // At 200 ms: the reference runs one row after another; without --ref-latency its time is estimated as its 0 ms
  // run plus 0.2 s per model request it made.
  const lat = (s: Side) => runs[s]['182/200ms']?.[0];
  const refLat = hasRef
    ? (lat('reference')?.wall_s ??
      ((): number | null => {
        const calls = med('reference', '182/pyodide', (m) => m.calls);
        const wall = med('reference', '182/pyodide', (m) => m.wall_s);
        return calls === null || wall === null ? null : wall + calls * 0.2;
      })())
    : null;
  const refLabel = hasRef
    ? `${fmt(refLat, ' s', 1)}${lat('reference') ? '' : ' (estimated: 0 ms run + 0.2 s × its requests)'}`
    : '';
  lines.push(
    `| ${o.rows} rows at 200 ms, c16 | ${hasRef ? `${refLabel} | ` : ''}${cols.map((s) => (lat(s) ? `${lat(s)!.wall_s.toFixed(1)} s (run span ${lat(s)!.span_over_ideal}× the ideal)` : 'n/a')).join(' | ')}${hasRef ? ` | ${cols.map((s) => ratio(lat(s)?.wall_s ?? null, refLat)).join(' | ')}` : ''} |`,
  );
  return lines.join('\n');
}

/**
 * The reference's setup as the record's `setup` strings (bench/record.ts). A committed record names no folder of the
 * machine it was measured on: the interpreter is its version and whether it is a virtual environment, a stand-in
 * module is named as one without its path.
 */
export function referenceSetupLines(r: ReferenceSetup): Record<string, string> {
  return {
    reference_runner: `${r.runner} (sha256 ${r.runner_sha256})`,
    reference_python: `CPython ${r.python_version}${r.venv === undefined ? '' : r.venv ? ' in a virtual environment' : ', not a virtual environment'}`,
    ...Object.fromEntries(
      Object.entries(r.modules).map(([k, v]) => [
        `reference_module_${k}`,
        v.startsWith('stand-in at ') ? 'stand-in (imported from outside site-packages)' : v,
      ]),
    ),
    reference_concurrency: r.concurrency,
    ...Object.fromEntries(
      Object.entries(r.env).map(([k, v]) => [
        `reference_env_${k}`,
        k === 'PYTHONPATH' && v !== '(unset)' ? '(set)' : v,
      ]),
    ),
  };
}

/** The bench's command line for a record, with the folders it was given replaced by their flag's placeholder. */
export function recordedCommand(argv: string[]): string {
  const out = argv.map((a, i) => (argv[i - 1] === '--baseline' ? 'DIR' : argv[i - 1] === '--data' ? 'FILE' : a));
  return `npx tsx bench/toolhop.ts ${out.join(' ')}`;
}

/**
 * The medians of a side-by-side as record figures (integers: ms, MiB, and the 200 ms run's span over the ideal in
 * percent). A side or configuration that did not run, or failed, leaves its figures out.
 */
export function sideBySideFigures(r: SideBySide): Record<string, number> {
  const out: Record<string, number> = {
    rounds: r.rounds,
    load1_min: Math.min(...r.load),
    load1_max: Math.max(...r.load),
  };
  const put = (
    key: string,
    ms: Measured[] | undefined,
    f: (m: Measured) => number | null | undefined,
    scale: number,
  ) => {
    if (!ms?.length || ms.some((m) => m.code !== 0)) return;
    const xs = ms.map(f).filter((x): x is number => typeof x === 'number');
    if (xs.length) out[key] = Math.round(median(xs) * scale);
  };
  const short: Record<Side, string> = { reference: 'ref', toolgauge: 'tg', baseline: 'base' };
  for (const side of ['reference', 'toolgauge', 'baseline'] as const) {
    const s = short[side];
    for (const [c, k] of [
      ['5/pyodide', '5'],
      ['182/pyodide', 'all_pyodide'],
      ['182/python', 'all_python'],
    ] as const) {
      if (side === 'reference' && c === '182/python') continue;
      put(`${s}_${k}_wall_ms`, r.runs[side][c], (m) => m.wall_s, 1000);
      put(`${s}_${k}_cpu_ms`, r.runs[side][c], (m) => m.cpu_s, 1000);
      put(`${s}_${k}_pss_mib`, r.runs[side][c], (m) => m.peak_pss_mib, 1);
      put(`${s}_${k}_rss_mib`, r.runs[side][c], (m) => m.peak_mib, 1);
    }
    put(`${s}_200ms_wall_ms`, r.runs[side]['182/200ms'], (m) => m.wall_s, 1000);
    put(`${s}_200ms_span_pct_of_ideal`, r.runs[side]['182/200ms'], (m) => m.span_over_ideal, 100);
  }
  return out;
}
