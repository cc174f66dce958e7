// `npm run bench:bfcl-evaluator [-- --per-category N --multi-turn N --record NAME]`: `toolgauge bfcl rescore` beside
// BFCL's own evaluator (eval_runner.py, driven by fixtures/bfcl/bfcl_evaluate.py) on the same result files.
// `--sizes 100x50,400x200 [--rounds R]` runs it at each size (per-category x multi-turn cases), R rounds over the
// sizes in turn, and fits CPU-s against cases per part and side (least squares): the slope is the marginal cost of a
// case, which is what matters at scale; the intercept is the fixed cost (start-up, imports).
//   1. Writes result folders BFCL's way (result/<model>/<group>/BFCL_v4_<category>_result.json) for several
//      categories: per case the oracle's output or a mutated one (harness/bfcl/arbitraries.ts), for an FC model
//      (tg-fc) and a prompt-mode model (tg-prompt).
//   2. Scores them with `toolgauge bfcl rescore` (one process per model folder) and with BFCL's evaluator (one
//      process over the whole folder), each timed: wall, and CPU-s of the process tree (/usr/bin/time).
//   3. Compares the verdict of every case (valid and error_type) and lists any difference.
// BFCL's folder (berkeley-function-call-leaderboard, holding bfcl_eval/) comes from TOOLGAUGE_BFCL_REF; without it
// the bench says so and exits 0. Both sides read BFCL's data from that folder.
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { outputFor } from '../../harness/bfcl/arbitraries.ts';
import { checkKindOf, languageOf, type BfclCategory } from '../../harness/bfcl/categories.ts';
import { loadCategory } from '../../harness/bfcl/data.ts';
import { simulatedResult, type Behaviour } from '../../harness/bfcl/responder.ts';
import { pyJsonDumps } from '../../harness/core/pyliteral/pyjson.ts';
import type { PyValue } from '../../harness/core/pyliteral/index.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { writeRecord } from '../record.ts';

const { values } = parseArgs({
  options: {
    'per-category': { type: 'string' },
    'multi-turn': { type: 'string' },
    record: { type: 'string' },
    sizes: { type: 'string' },
    rounds: { type: 'string' },
    keep: { type: 'boolean' },
  },
});
const PER = Number(values['per-category'] ?? 200);
const MT = Number(values['multi-turn'] ?? 30);
const ROUNDS = Number(values.rounds ?? 1);
/** [per-category, multi-turn] per size; one size without --sizes. */
const SIZES: Array<[number, number]> = values.sizes
  ? values.sizes.split(',').map((s) => {
      const m = /^(\d+)x(\d+)$/.exec(s.trim());
      if (!m) throw new Error(`--sizes: ${JSON.stringify(s)} is not PERxMT (e.g. 100x50)`);
      return [Number(m[1]), Number(m[2])];
    })
  : [[PER, MT]];
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`--rounds: ${values.rounds} is not a positive integer`);
const REF = process.env.TOOLGAUGE_BFCL_REF;
const DRIVER = fileURLToPath(new URL('../../fixtures/bfcl/bfcl_evaluate.py', import.meta.url));

if (!REF || !existsSync(join(REF, 'bfcl_eval', 'eval_checker', 'eval_runner.py'))) {
  console.log(
    'SKIPPED: set TOOLGAUGE_BFCL_REF to a BFCL berkeley-function-call-leaderboard folder (holding bfcl_eval/) to run BFCL’s evaluator beside toolgauge',
  );
  process.exit(0);
}
const DATA = join(REF, 'bfcl_eval', 'data');
const python = process.env.TOOLGAUGE_PYTHON || '/usr/bin/python3';

// FC covers every language (Java and JavaScript are decoded from FC arguments); prompt mode only Python.
const FC_CATEGORIES: BfclCategory[] = [
  'simple_python',
  'multiple',
  'parallel',
  'parallel_multiple',
  'simple_java',
  'simple_javascript',
  'irrelevance',
  'live_simple',
  'live_multiple',
  'live_relevance',
  'multi_turn_base',
];
const PROMPT_CATEGORIES: BfclCategory[] = ['simple_python', 'parallel_multiple', 'live_simple', 'multi_turn_base'];
const MODELS = [
  { model: 'tg-fc', format: 'fc' as const, categories: FC_CATEGORIES },
  { model: 'tg-prompt', format: 'pythonic' as const, categories: PROMPT_CATEGORIES },
];
const BEHAVIOURS: Behaviour[] = ['oracle', 'decision_failure', 'format_failure'];

/** BFCL's result tree groups files by live / non_live / multi_turn. */
const groupOf = (c: string) =>
  c.startsWith('live_') ? 'live' : c.startsWith('multi_turn') ? 'multi_turn' : 'non_live';

/** model/id → how its output was made (oracle, behaviour, or the generator's recipe). */
const recipes = new Map<string, string>();

export function writeResults(root: string, per: number, mt: number): number {
  let n = 0;
  for (const [mi, { model, format, categories }] of MODELS.entries()) {
    for (const [ci, category] of categories.entries()) {
      const cases = loadCategory(DATA, category);
      const lines: string[] = [];
      if (checkKindOf(category) === 'multi_turn') {
        cases.slice(0, mt).forEach((c, k) => {
          const behaviour = BEHAVIOURS[k % BEHAVIOURS.length]!;
          const result = simulatedResult(c, format, behaviour);
          recipes.set(`${model}/${c.id}`, behaviour);
          lines.push(`{"id": ${JSON.stringify(c.id)}, "result": ${pyJsonDumps(result)}}`);
        });
      } else {
        const picked = cases.slice(0, per);
        picked.forEach((c, k) => {
          let result: PyValue;
          let recipe = 'oracle';
          if (k % 3 === 0) result = simulatedResult(c, format);
          else {
            const formats = format === 'pythonic' && languageOf(category) !== 'python' ? ['fc' as const] : [format];
            const [out] = fc.sample(outputFor(c, formats), { seed: 1000 * mi + 100 * ci + k, numRuns: 1 });
            ({ result, recipe } = out!);
          }
          recipes.set(`${model}/${c.id}`, recipe);
          lines.push(`{"id": ${JSON.stringify(c.id)}, "result": ${pyJsonDumps(result)}}`);
        });
      }
      const dir = join(root, 'result', model, groupOf(category));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `BFCL_v4_${category}_result.json`), `${lines.join('\n')}\n`);
      n += lines.length;
    }
  }
  return n;
}

interface Timed {
  wallS: number;
  cpuS: number;
  maxRssMb: number;
}

/** One command under /usr/bin/time: wall, user+sys of the process and its waited-for children, peak RSS. */
function timed(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Timed {
  const out = join(tmpdir(), `tg-time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    execFileSync('/usr/bin/time', ['-f', '%e %U %S %M', '-o', out, file, ...args], {
      cwd: fromRoot(),
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
      maxBuffer: 1 << 28,
    });
    const [e, u, s, m] = readFileSync(out, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
    return { wallS: e!, cpuS: u! + s!, maxRssMb: m! / 1024 };
  } finally {
    rmSync(out, { force: true });
  }
}

type Verdict = { valid: boolean; error_type: string };

function walk(dir: string, match: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p, match) : match.test(name) ? [p] : [];
  });
}

/** BFCL's score files list the invalid cases (after a header line); a result id not listed is valid. */
function bfclVerdicts(scoreDir: string, resultDir: string): Map<string, Verdict> {
  const out = new Map<string, Verdict>();
  for (const model of readdirSync(resultDir)) {
    for (const file of walk(join(resultDir, model), /_result\.json$/))
      for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean))
        out.set(`${model}/${JSON.parse(line).id}`, { valid: true, error_type: '' });
    if (!existsSync(join(scoreDir, model))) continue;
    for (const file of walk(join(scoreDir, model), /_score\.json$/)) {
      const [, ...rows] = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      for (const row of rows) {
        // Multi-turn score lines nest the error type under `error`.
        const r = JSON.parse(row) as {
          id: string;
          valid: boolean;
          error_type?: string;
          error?: { error_type?: string };
        };
        out.set(`${model}/${r.id}`, { valid: r.valid, error_type: r.error_type ?? r.error?.error_type ?? '' });
      }
    }
  }
  return out;
}

// Timed in two parts, single-turn and multi-turn categories, so that each part's cost per case shows.
const PARTS = {
  single: (c: BfclCategory) => checkKindOf(c) !== 'multi_turn',
  multi: (c: BfclCategory) => checkKindOf(c) === 'multi_turn',
};
type Part = keyof typeof PARTS;
const PART_NAMES = Object.keys(PARTS) as Part[];
const zero = (): Timed => ({ wallS: 0, cpuS: 0, maxRssMb: 0 });
const add = (a: Timed, b: Timed) => {
  a.wallS += b.wallS;
  a.cpuS += b.cpuS;
  a.maxRssMb = Math.max(a.maxRssMb, b.maxRssMb);
};

interface Run {
  per: number;
  mt: number;
  cases: number;
  bfcl: Record<Part, Timed>;
  ours: Record<Part, Timed>;
  partCases: Record<Part, number>;
  agree: number;
  bfclValid: number;
  objectArgs: number;
  explained: string[];
  differences: string[];
  load1: number;
}

/** Writes the folders for one size, scores them both ways (timed) and compares every verdict. */
function runAt(per: number, mt: number): Run {
  const work = mkdtempSync(join(tmpdir(), 'tg-bfcl-beside-'));
  const resultDir = join(work, 'result');
  const cases = writeResults(work, per, mt);
  console.error(`${cases} result lines under ${work}`);
  const scoreDir = join(work, 'score');
  const bfcl: Record<Part, Timed> = { single: zero(), multi: zero() };
  const ours: Record<Part, Timed> = { single: zero(), multi: zero() };
  const partCases: Record<Part, number> = { single: 0, multi: 0 };
  const mine = new Map<string, Verdict>();
  for (const part of PART_NAMES) {
    // BFCL's evaluator: one process over the folder (its runner walks result/<model>/…).
    const categories = [...new Set(MODELS.flatMap((m) => m.categories))].filter(PARTS[part]);
    add(
      bfcl[part],
      timed(python, ['-X', 'utf8', DRIVER, REF!, resultDir, scoreDir, ...categories], {
        ...process.env,
        BFCL_PROJECT_ROOT: work,
      }),
    );
    // toolgauge: one rescore per model folder (the format and the model-registry flag differ between them).
    for (const { model, format, categories: own } of MODELS) {
      const out = join(work, `tg-${model}-${part}`);
      add(
        ours[part],
        timed(fromRoot('bin', 'toolgauge.mjs'), [
          'bfcl',
          'rescore',
          '--result-dir',
          join(resultDir, model),
          '--out-dir',
          out,
          '--format',
          format,
          '--data',
          DATA,
          '--bfcl-source',
          REF!,
          '--model-name',
          model,
          '--category',
          own.filter(PARTS[part]).join(','),
        ]),
      );
      for (const line of readFileSync(join(out, 'results.jsonl'), 'utf8').split('\n').filter(Boolean)) {
        const r = JSON.parse(line) as Verdict & { id: string };
        mine.set(`${model}/${r.id}`, { valid: r.valid, error_type: r.error_type });
        partCases[part]++;
      }
    }
  }

  const theirs = bfclVerdicts(scoreDir, resultDir);
  // FC arguments stored as an object rather than JSON text: BFCL's OpenAI-style handler (the one the evaluator runs
  // here) fails to decode them (json.loads of a dict), while toolgauge's `fc` format also reads them as BFCL's Gemini
  // handler does (it stores objects and passes them through). Which is right depends on the handler that wrote the
  // file; such cases are counted apart, every other difference is a disagreement.
  const handlerDependent = (key: string) => recipes.get(key)?.startsWith('fc/objectArgs') ?? false;
  const explained: string[] = [];
  const differences: string[] = [];
  let agree = 0;
  let bfclValid = 0;
  for (const [key, ref] of theirs) {
    if (ref.valid) bfclValid++;
    const v = mine.get(key);
    if (v && v.valid === ref.valid && v.error_type === ref.error_type) agree++;
    else
      (handlerDependent(key) ? explained : differences).push(
        `${key}: toolgauge ${v ? `${v.valid}:${v.error_type}` : 'no verdict'}, BFCL ${ref.valid}:${ref.error_type}`,
      );
  }
  for (const key of mine.keys()) if (!theirs.has(key)) differences.push(`${key}: no BFCL verdict`);
  const objectArgs = [...theirs.keys()].filter(handlerDependent).length;
  if (!values.keep) rmSync(work, { recursive: true, force: true });
  else console.error(`kept ${work}`);
  const load1 = Math.round(loadavg()[0]! * 100) / 100;
  return { per, mt, cases, bfcl, ours, partCases, agree, bfclValid, objectArgs, explained, differences, load1 };
}

function printRun(r: Run): void {
  console.log(`\n### toolgauge bfcl rescore beside BFCL's evaluator (${r.cases} cases, load ${r.load1})\n`);
  console.log(
    '| part | cases | | wall s | CPU-s (tree) | ms wall / case | ms CPU / case | peak RSS MiB |\n|---|---|---|---|---|---|---|---|',
  );
  for (const part of PART_NAMES) {
    for (const [name, t] of [
      ['BFCL eval_runner', r.bfcl[part]],
      ['toolgauge bfcl rescore', r.ours[part]],
    ] as const) {
      const n = r.partCases[part];
      console.log(
        `| ${part}-turn | ${n} | ${name} | ${t.wallS.toFixed(2)} | ${t.cpuS.toFixed(2)} | ${((1000 * t.wallS) / n).toFixed(2)} | ${((1000 * t.cpuS) / n).toFixed(2)} | ${t.maxRssMb.toFixed(0)} |`,
      );
    }
  }
  console.log(
    `\nverdicts: ${r.agree} of ${r.agree + r.explained.length + r.differences.length} identical (BFCL valid: ${r.bfclValid}); ${r.explained.length} of the ${r.objectArgs} FC outputs with object arguments differ (handler-dependent, see above); other differences: ${r.differences.length}`,
  );
  for (const d of r.differences.slice(0, 50)) console.log(`- ${d}`);
  for (const d of r.explained.slice(0, 5)) console.log(`- (object arguments) ${d}`);
}

/** Least-squares line through (cases, CPU-s): slope in CPU-s per case, intercept in CPU-s. */
function leastSquares(points: Array<[number, number]>): { slope: number; intercept: number } {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  if (sxx === 0) throw new Error('--sizes: the sizes give the same number of cases; a slope needs two');
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

const runs: Run[] = [];
for (let round = 0; round < ROUNDS; round++)
  for (const [per, mt] of SIZES) {
    const r = runAt(per, mt);
    printRun(r);
    runs.push(r);
  }

/** The figures of one run, as the single-size bench has always recorded them. */
const runFigures = (r: Run): Record<string, number> => ({
  cases: r.cases,
  agree: r.agree,
  differences: r.differences.length,
  object_args_cases: r.objectArgs,
  object_args_differences: r.explained.length,
  bfcl_valid: r.bfclValid,
  single_cases: r.partCases.single,
  multi_cases: r.partCases.multi,
  ...Object.fromEntries(
    PART_NAMES.flatMap((part) => {
      const n = r.partCases[part];
      return [
        [`bfcl_${part}_cpu_us_per_case`, (1e6 * r.bfcl[part].cpuS) / n],
        [`bfcl_${part}_wall_us_per_case`, (1e6 * r.bfcl[part].wallS) / n],
        [`toolgauge_${part}_cpu_us_per_case`, (1e6 * r.ours[part].cpuS) / n],
        [`toolgauge_${part}_wall_us_per_case`, (1e6 * r.ours[part].wallS) / n],
        [`bfcl_${part}_cpu_ms`, 1000 * r.bfcl[part].cpuS],
        [`toolgauge_${part}_cpu_ms`, 1000 * r.ours[part].cpuS],
      ];
    }),
  ),
});

let figures: Record<string, number>;
if (!values.sizes) figures = runFigures(runs[0]!);
else {
  // Per size: the figures of its last round (the bench's usual keys, prefixed), then the fit over every run.
  figures = {};
  for (const [per, mt] of SIZES) {
    const last = runs.filter((r) => r.per === per && r.mt === mt).at(-1)!;
    for (const [k, v] of Object.entries(runFigures(last))) figures[`s${per}x${mt}_${k}`] = v;
  }
  figures.runs = runs.length;
  figures.differences = runs.reduce((a, r) => a + r.differences.length, 0);
  figures.load1_min = Math.min(...runs.map((r) => r.load1));
  figures.load1_max = Math.max(...runs.map((r) => r.load1));
  console.log('\n### marginal CPU per case (least squares over every run: CPU-s of the process tree against cases)\n');
  console.log('| part | side | marginal CPU µs / case | fixed CPU ms |\n|---|---|---|---|');
  for (const part of PART_NAMES)
    for (const [side, pick] of [
      ['bfcl', (r: Run) => r.bfcl[part].cpuS],
      ['toolgauge', (r: Run) => r.ours[part].cpuS],
    ] as const) {
      const { slope, intercept } = leastSquares(runs.map((r) => [r.partCases[part], pick(r)]));
      figures[`${side}_${part}_marginal_cpu_us_per_case`] = 1e6 * slope;
      figures[`${side}_${part}_fixed_cpu_ms`] = 1000 * intercept;
      console.log(`| ${part}-turn | ${side} | ${(1e6 * slope).toFixed(0)} | ${(1000 * intercept).toFixed(0)} |`);
    }
  console.log(
    `\n${runs.length} runs, load ${figures.load1_min}–${figures.load1_max}; verdict differences in all: ${figures.differences}`,
  );
}

if (values.record) {
  const flags = values.sizes
    ? `--sizes ${values.sizes}${ROUNDS > 1 ? ` --rounds ${ROUNDS}` : ''}`
    : `--per-category ${PER} --multi-turn ${MT}`;
  const rec = writeRecord(values.record, figures, `npm run bench:bfcl-evaluator -- ${flags} --record ${values.record}`);
  console.error(`recorded bench/records/${rec.bench}.json`);
}
