import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readConfig } from '../../core/config.ts';
import { DataError, UsageError } from '../../core/errors.ts';
import { checkEndpoint, EndpointUnavailable } from '../../model/preflight.ts';
import { runOptimize, type OptimizeRequest } from '../../optimize/run.ts';
import { isSimModel, parsePolicySpec } from '../../sim/policy-spec.ts';
import { readToolhopSettings, TOPOLOGIES } from '../../toolhop/settings.ts';
import { flagSchemas, parseFlags, type FlagSpecs } from '../../kit/flags/flags.ts';
import { settingsSource } from '../../kit/flags/model-flags.ts';
import { optimizerCell, optimizerGridRefusal } from '../../optimize/grid.ts';

export const USAGE = `toolgauge optimize --method gepa|mipro [--suite toolhop] --topology T [--agents N] [--rounds R] [--comm C] [--allow-any-cell]
                   --model M [--base-url URL] [--reflection-model M2] [--reflection-base-url URL]
                   [--train-size K] [--val-size K] [--budget ROLLOUTS] [--seed S] [--out DIR]
                   [--data FILE|hf[:REV]] [--prompts SEED_DIR] [--allow-eval-ids] [--resume] [--heldout N]
                   [--minibatch N] [--no-merge] [--num-candidates K] [--num-trials T] [--reflection-temperature T]
                   [--concurrency N] [--max-turns N] [--sandbox auto|pyodide|python] [--temperature T]
  Optimise a topology's role prompts on ToolHop rows outside the eval ids 0–99 (GEPA: reflective prompt evolution;
  MIPRO: instruction proposals and search). Every candidate is scored by the real runner; one rollout = one row run
  by one candidate, and the search never spends more than --budget rollouts. DIR gets best/ (prompt files in the
  seed layout: toolgauge toolhop --prompts DIR/best), report.md, summary.json, candidates/, log.jsonl.
  --resume continues a killed run from DIR/log.jsonl (a larger --budget goes on searching).
  --heldout N also judges seed and best on N held-out rows after the search (outside the budget).
  Defaults: --reflection-model the task model, --train-size 30, --val-size 30, --budget 20 × --val-size,
  --out results/optimize/<topology>_toolhop_<method>.
  Rollouts run the dataset's Python tools: set TOOLHOP_ALLOW_DATASET_EXEC=1.
  A cell outside the method's part of the reference's experiment grid (on ToolHop: each topology at its baseline
  team, freeform) is refused unless --allow-any-cell, and then reported as non-conformant.
  Simulator: --model sim:trait --reflection-model sim:reflect (calibration fixtures, labelled in every report).`;

const int = flagSchemas.positiveInt;

/**
 * What an omitted flag means: 30 training and 30 validation rows, a budget of 20 rollouts per validation row (600
 * by default: the seed's validation and then about 25 GEPA steps with their validations), the task model as the
 * reflection model, and `results/optimize/<topology>_toolhop_<method>` (the reference's `<topology>_<dataset>_real_gepa`).
 */
export const OPTIMIZE_DEFAULTS = { trainSize: 30, valSize: 30, budgetPerValRow: 20 } as const;
const FLAGS: FlagSpecs = {
  method: { type: 'string', values: ['gepa', 'mipro'] },
  suite: { type: 'string', values: ['toolhop'] },
  dataset: { type: 'string', values: ['toolhop'], description: "the reference launcher's name for --suite" },
  topology: { type: 'string', values: TOPOLOGIES },
  agents: { type: 'string', schema: int },
  rounds: { type: 'string', schema: int },
  comm: { type: 'string', values: ['freeform', 'semi_structured', 'structured'] },
  'allow-any-cell': {
    type: 'boolean',
    description: "optimize a cell outside the method's part of the reference's experiment grid (a non-conformant job)",
  },
  model: { type: 'string' },
  'base-url': { type: 'string', schema: z.string().url('must be a URL') },
  'reflection-model': { type: 'string' },
  'reflection-base-url': { type: 'string', schema: z.string().url('must be a URL') },
  'reflection-temperature': { type: 'string', schema: z.coerce.number({ message: 'must be a number' }).min(0).max(2) },
  'train-size': { type: 'string', schema: int },
  'val-size': { type: 'string', schema: int },
  budget: { type: 'string', schema: int },
  seed: { type: 'string', schema: flagSchemas.nonNegativeInt },
  out: { type: 'string', schema: z.string().min(1, 'must not be empty') },
  data: { type: 'string' },
  prompts: { type: 'string' },
  'allow-eval-ids': { type: 'boolean' },
  resume: { type: 'boolean' },
  heldout: { type: 'string', schema: flagSchemas.nonNegativeInt },
  minibatch: { type: 'string', schema: int },
  'no-merge': { type: 'boolean' },
  'num-candidates': { type: 'string', schema: int },
  'num-trials': { type: 'string', schema: int },
  concurrency: { type: 'string', schema: int },
  'request-timeout': { type: 'string', schema: flagSchemas.timeoutMs },
  retries: { type: 'string', schema: flagSchemas.nonNegativeInt },
  temperature: { type: 'string', schema: z.coerce.number({ message: 'must be a number' }).min(0).max(2) },
  'max-tokens': { type: 'string', schema: int },
  'max-turns': { type: 'string', schema: int },
  sandbox: {
    type: 'string',
    values: ['auto', 'pyodide', 'python'],
    description:
      'where tools run: auto (default: pyodide, CPython for rows that import numpy or sympy), pyodide or python',
  },
  python: { type: 'string' },
  'tool-timeout': { type: 'string', schema: flagSchemas.timeoutMs },
  cache: { type: 'string', values: ['off', 'record', 'replay'] },
  'cache-dir': { type: 'string' },
};

/** Flags that become the run's and the suite's environment variables (the same names `toolgauge toolhop` uses). */
const ENV: Record<string, string> = {
  data: 'TOOLHOP_DATA',
  topology: 'TOOLHOP_TOPOLOGY',
  agents: 'TOOLHOP_TEAM_SIZE',
  rounds: 'TOOLHOP_ROUNDS',
  comm: 'TOOLHOP_COMM',
  prompts: 'TOOLHOP_PROMPTS',
  'max-turns': 'TOOLHOP_MAX_TURNS',
  sandbox: 'TOOLGAUGE_SANDBOX',
  python: 'TOOLGAUGE_PYTHON',
  'tool-timeout': 'TOOLGAUGE_TOOL_TIMEOUT_MS',
};
const NOT_ENV = new Set([
  'method',
  'suite',
  'dataset',
  'reflection-model',
  'reflection-base-url',
  'reflection-temperature',
  'train-size',
  'val-size',
  'budget',
  'out',
  'allow-eval-ids',
  'resume',
  'heldout',
  'minibatch',
  'no-merge',
  'num-candidates',
  'num-trials',
  'allow-any-cell',
]);

/** Parse and check the flags into a request (exported for tests); every problem is a one-line UsageError. */
export function optimizeRequest(argv: string[], baseEnv: NodeJS.ProcessEnv = process.env): OptimizeRequest {
  const { values: v } = parseFlags('optimize', argv, FLAGS);
  const need = (flag: string, what = '') => {
    if (v[flag] === undefined) throw new UsageError(`toolgauge optimize: --${flag}${what} is required`);
    return v[flag];
  };
  const method = need('method', ' gepa|mipro') as 'gepa' | 'mipro';
  if (v.suite && v.dataset && v.suite !== v.dataset)
    throw new UsageError('toolgauge optimize: --suite and --dataset name different suites');
  const trainSize = (v['train-size'] as number | undefined) ?? OPTIMIZE_DEFAULTS.trainSize;
  const valSize = (v['val-size'] as number | undefined) ?? OPTIMIZE_DEFAULTS.valSize;
  const budget = (v.budget as number | undefined) ?? OPTIMIZE_DEFAULTS.budgetPerValRow * valSize;
  if (method === 'gepa' && (v['num-candidates'] !== undefined || v['num-trials'] !== undefined)) {
    throw new UsageError('toolgauge optimize: --num-candidates and --num-trials are MIPRO settings (--method mipro)');
  }
  if (method === 'mipro' && v['no-merge'])
    throw new UsageError('toolgauge optimize: --no-merge is a GEPA setting (--method gepa)');
  if (budget < valSize)
    throw new UsageError(
      `toolgauge optimize: --budget ${budget} does not cover the seed's validation (--val-size ${valSize} rollouts)`,
    );
  for (const f of ['prompts', 'data']) {
    const p = v[f];
    if (typeof p === 'string' && !/^hf(:|$)/.test(p) && !existsSync(p))
      throw new UsageError(`toolgauge optimize: --${f} '${p}' does not exist`);
  }

  const passed = Object.fromEntries(Object.entries(v).filter(([k]) => !NOT_ENV.has(k)));
  const env = settingsSource(baseEnv, passed, ENV);
  let run, settings;
  try {
    run = readConfig(env);
    settings = readToolhopSettings(env);
  } catch (err) {
    throw new UsageError(`toolgauge optimize: ${(err as Error).message}`);
  }
  // As the reference's run protocol: a cell outside the method's grid stops here unless --allow-any-cell.
  const { cell, offGrid } = optimizerCell(method, settings);
  if (offGrid && !v['allow-any-cell']) throw new UsageError(optimizerGridRefusal(method, cell, offGrid));
  // The reference's optimizer reflects with a model of its own; without --reflection-model the task model reflects.
  const reflectionDefaulted = v['reflection-model'] === undefined;
  const reflectionModel = (v['reflection-model'] as string | undefined) ?? run.model;
  const out = (v.out as string | undefined) ?? join('results', 'optimize', `${settings.topology}_toolhop_${method}`);
  if (isSimModel(run.model)) {
    let spec;
    try {
      spec = parsePolicySpec(run.model);
    } catch (err) {
      throw new UsageError(`toolgauge optimize: --model ${(err as Error).message}`);
    }
    if (spec.name === 'reflect')
      throw new UsageError(
        'toolgauge optimize: --model sim:reflect is a reflection model; the task policy of the calibration fixture is sim:trait',
      );
  }
  if (isSimModel(reflectionModel)) {
    let spec;
    try {
      spec = parsePolicySpec(reflectionModel);
    } catch (err) {
      throw new UsageError(`toolgauge optimize: --reflection-model ${(err as Error).message}`);
    }
    if (spec.name !== 'reflect')
      throw new UsageError(
        `toolgauge optimize: --reflection-model ${reflectionDefaulted ? '(default: --model) ' : ''}sim:${spec.name} cannot reflect; the simulated reflection model is sim:reflect`,
      );
  } else if (!v['reflection-base-url'] && !run.baseUrl) {
    throw new UsageError(
      `toolgauge optimize: --reflection-model '${reflectionModel}' needs an endpoint: pass --reflection-base-url (or --base-url), or use sim:reflect`,
    );
  }
  const minibatch = v.minibatch as number | undefined;
  return {
    method,
    suite: 'toolhop',
    run,
    settings,
    reflection: {
      model: reflectionModel,
      baseUrl: v['reflection-base-url'] as string | undefined,
      apiKey: env.TOOLGAUGE_REFLECTION_API_KEY ?? run.apiKey,
      temperature: (v['reflection-temperature'] as number | undefined) ?? 0,
      timeoutMs: v['reflection-base-url'] || !isSimModel(reflectionModel) ? 600_000 : 5_000,
      retries: run.retries,
    },
    trainSize,
    valSize,
    budget,
    seed: (v.seed as number | undefined) ?? 0,
    out,
    allowEvalIds: !!v['allow-eval-ids'],
    allowAnyCell: !!v['allow-any-cell'],
    resume: !!v.resume,
    heldout: (v.heldout as number | undefined) ?? 0,
    gepa: { ...(minibatch ? { minibatch } : {}), ...(v['no-merge'] ? { merge: false } : {}) },
    mipro: {
      ...(minibatch ? { minibatch } : {}),
      ...(v['num-candidates'] ? { numCandidates: v['num-candidates'] as number } : {}),
      ...(v['num-trials'] ? { numTrials: v['num-trials'] as number } : {}),
    },
  };
}

export async function run(argv: string[]): Promise<number> {
  const req = optimizeRequest(argv);
  for (const [flag, baseUrl, model] of [
    ['--base-url', req.run.baseUrl, req.run.model],
    ['--reflection-base-url', req.reflection.baseUrl, req.reflection.model],
  ] as const) {
    if (!baseUrl) continue;
    try {
      await checkEndpoint({ baseUrl, apiKey: flag === '--base-url' ? req.run.apiKey : req.reflection.apiKey, model });
    } catch (err) {
      if (err instanceof EndpointUnavailable) throw new UsageError(`toolgauge optimize: ${flag}: ${err.message}`);
      throw err;
    }
  }
  let o;
  try {
    o = await runOptimize(req, { say: (line) => process.stderr.write(`${line}\n`), closeRuntime: true });
  } catch (err) {
    // A broken data file or log is the user's to fix: one line, like a bad flag.
    if (err instanceof DataError) throw new UsageError(`toolgauge optimize: ${err.message}`);
    throw err;
  }
  const s = o.summary;
  const f = (x: number) => x.toFixed(3);
  const lines = [
    `toolgauge optimize · ${s.method.toUpperCase()} · ToolHop · ${s.topology} · ${req.run.model} (reflection ${req.reflection.model})${s.notice ? '  [SIMULATOR — not a model result]' : ''}${s.conformance.conformant ? '' : '  [NON-CONFORMANT: off-grid cell]'}`,
    `  validation: seed ${s.seed} ${f(s.validation.seed.value)} [${f(s.validation.seed.lo)}, ${f(s.validation.seed.hi)}] → best ${s.best} ${f(s.validation.best.value)} [${f(s.validation.best.lo)}, ${f(s.validation.best.hi)}]  n=${s.validation.seed.n}: ${s.validation.comparison.verdict}`,
    ...(s.heldout
      ? [
          `  held out:   seed ${f(s.heldout.seed.value)} → best ${f(s.heldout.best.value)}  n=${s.heldout.seed.n}: ${s.heldout.comparison.verdict}`,
        ]
      : []),
    `  rollouts ${s.spent}/${s.budget}${s.replayed_rollouts ? ` (${s.replayed_rollouts} from the log)` : ''}; stopped: ${s.stop_reason}`,
    `  best prompts: ${join(o.outDir, 'best')}   report: ${join(o.outDir, 'report.md')}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  if (o.harnessFailure) {
    process.stderr.write(
      `toolgauge optimize: stopped at a harness error: ${o.harnessFailure}\n  fix the endpoint and rerun the same command with --resume\n`,
    );
    return 1;
  }
  return 0;
}
