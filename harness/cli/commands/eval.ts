import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPORTER_PATH } from '../../../reporters/path.ts';
import { evalConfig } from '../../api/vitest-config.ts';
import { UsageError } from '../../core/errors.ts';
import { applyConfig, type ConfigOptions } from '../../kit/flags/config-file.ts';
import { flagSchemas, type FlagSpecs, parseFlags } from '../../kit/flags/flags.ts';
import { MODEL_FLAGS, type Shard, settingsSource } from '../../kit/flags/model-flags.ts';
import { GateSyntaxError, parseGate } from '../../kit/gate.ts';
import { cliInterruptLine } from '../../kit/interrupt.ts';
import { planRun, type RunPlan } from '../../kit/plan.ts';
import { openRun } from '../../launch/open-run.ts';
import { PACKAGE_ROOT } from '../../core/paths.ts';
import { evalBundlePlugin } from '../../vitest/eval-bundle-plugin.ts';
import { launcherBundle } from '../../vitest/eval-config.ts';
import { evalGlob } from '../../vitest/eval-glob.ts';
import { PART_FILES, writePartFiles } from '../../vitest/eval-parts.ts';
import { type InlineRun, runEvalSuites } from '../../vitest/run.ts';
import { type EndedEval, endedEvals, type EvalRun, modelListOf, runEachModel } from '../eval-models.ts';
import { checkShardFill } from '../eval-shard.ts';
import { checkWatchFlags, runEvalWatch } from '../eval-watch.ts';

export const USAGE = `toolgauge eval FILE.eval.ts [FILE…] [--model NAME | --model A,B…] [--base-url URL] [--concurrency N] [--trials K] [--seed N]
               [--out-dir DIR] [--resume] [--gate EXPR] [--shard i/n [--blob-dir DIR]] [--merge-reports DIR] [-t PATTERN]
               [--config FILE.yaml] [--mcp-config FILE] [--smoke] [--json] [--watch] [--parts N]   (every flag as a key, files: [..] for the eval files; docs/config.md)
  Runs your own eval files (describeEval from 'toolgauge') with toolgauge's eval configuration, from the current
  folder: one test per case, summary.json and report.md in results/<eval name>/. Exit 0, or 1 on a harness error
  or a failing --gate (failing cases alone do not fail the run), 2 on a usage error, 130 on Ctrl-C (docs/eval.md#exit-codes).
  --json: stdout is one JSON document, {"evals": [{"name", "outDir", "summary"}], "exitCode"} (each eval's
  summary.json); everything else (Vitest's output, the summaries) goes to stderr.
  --out-dir DIR: the eval's folder; with several evals (eval files, or a file that defines several) their parent,
  each eval in DIR/<eval name>/ as in results/; two evals of one name are refused before any case runs, in one
  line naming both files (exit 2; docs/eval.md#several-evals).
  --model A,B…: the run once per model, one after another, each into <eval dir>/<model folder>/ (the name with
  characters other than letters, digits, . _ - as _), then each eval's paired comparison of every model with the
  first (report --compare's comparison.md, .json, .svg) in <eval dir>/; an eval dir that holds a one-model run is
  refused (exit 2), and a model whose run is refused is the last to run; the exit code is the worst model's; with
  --json the document also has each eval's "model" and "comparisons": [{"name", "path"}] (docs/eval.md#several-models).
  --watch: run, then run again whenever an eval file or a module it imports changes, until Ctrl-C; each run is also
  kept in <out dir>/runs/<UTC time>/ (toolgauge view lists them). Not with --resume, --shard, --merge-reports, --json,
  --parts or a list of models.
  --parts N: each eval file runs as N parts, one after another in the test worker, each with every Nth case: the
  worker then holds one part's tests at a time (Vitest keeps a file's tests until the file ends). The same output,
  journal, summary and --resume as one part; for evals of tens of thousands of cases (docs/eval.md#large-evals).`;

/** The shared model flags and eval's own. */
export const EVAL_FLAGS: FlagSpecs = {
  ...MODEL_FLAGS,
  json: {
    type: 'boolean',
    description: "print the run's summaries as one JSON document on stdout, the rest on stderr",
  },
  'mcp-config': {
    type: 'string',
    description: 'a JSON or YAML file whose mcpServers mcp({ server }) reads (a --config file with mcpServers sets it)',
  },
  watch: {
    type: 'boolean',
    description: 'run again on every change to the eval files or what they import, until Ctrl-C; keeps each run',
  },
  parts: {
    type: 'string',
    schema: flagSchemas.positiveInt,
    description:
      "run each eval file as N parts, one after another, so the test worker holds one part's tests at a time (evals of tens of thousands of cases)",
  },
};

/** Every flag `toolgauge eval` accepts (its `--help` lists them all). */
export const ACCEPTED_FLAGS = EVAL_FLAGS;

/**
 * A configuration file's `files: [..]` are the eval files when the command line names none; `models: [a, b]` is
 * `--model a,b`, as for the probe.
 */
export const CONFIG_OPTIONS: ConfigOptions = {
  positionals: 'files',
  aliases: { models: 'model' },
  fileKeys: { mcpServers: 'mcp-config' },
};

/** `toolgauge eval`: a user's `*.eval.ts` files, run from their folder on the suite kit. */
export async function run(argvIn: string[]): Promise<number> {
  const argv = applyConfig('eval', argvIn, EVAL_FLAGS, CONFIG_OPTIONS, process.env);
  const { values, positionals } = parseFlags('eval', argv, EVAL_FLAGS, true);
  if (!positionals.length && !values['merge-reports'])
    throw new UsageError('toolgauge eval: give at least one eval file (e.g. evals/arith.eval.ts)');
  for (const f of positionals) if (!existsSync(f)) throw new UsageError(`toolgauge eval: '${f}' does not exist`);
  if (values.watch) checkWatchFlags(values);
  // `--model a,b`: the same run once per model, then their paired comparison (harness/cli/eval-models.ts)
  const models = modelListOf(values, process.env);
  if (models) {
    if (values.watch) throw new UsageError('toolgauge eval: --watch runs one model; give --model one name');
    return runEachModel(models, values, (vals, folder) => runEval(positionals, vals, folder));
  }
  const r = await runEval(positionals, values);
  if (values.json) process.stdout.write(`${JSON.stringify(jsonDocument(r.ended, r.exitCode))}\n`);
  return r.exitCode;
}

/** One run of the eval files on the flags' model; `modelFolder`: the folder inside each eval's it writes into. */
async function runEval(
  positionals: readonly string[],
  values: Record<string, unknown>,
  modelFolder?: string,
): Promise<EvalRun> {
  const plan = planRun(settingsSource(process.env, values, { 'mcp-config': 'TOOLGAUGE_MCP_CONFIG' }), []);
  if (modelFolder) plan.run.modelFolder = modelFolder;
  if (plan.run.gate) {
    try {
      parseGate(plan.run.gate);
    } catch (err) {
      if (err instanceof GateSyntaxError) throw new UsageError(`toolgauge eval: --gate: ${err.message}`);
      throw err;
    }
  }
  const root = process.cwd();
  const evalFiles = positionals.map((f) => resolve(f));
  // Several eval files are several evals: --out-dir is their parent, so that no two write one folder (a file that
  // defines several evals is seen by its worker, harness/vitest/describe-eval.ts).
  // Their worker learns the evals of every file before the first runs, to refuse two evals of one name.
  if (new Set(evalFiles).size > 1) {
    plan.run.outDirHoldsEvals = true;
    plan.evalFiles = [...new Set(evalFiles)];
  }
  // `--parts N`: each eval file runs as N part files (harness/vitest/eval-parts.ts).
  const parts = values.parts === undefined ? 1 : Number(values.parts);
  const shard = values.shard as Shard | undefined;
  checkShardFill(shard, evalFiles, parts);
  const files = parts > 1 ? evalFiles.flatMap((f) => writePartFiles(root, f, parts)) : evalFiles;
  // Loaded by path (a user's evals load it in their own module graph), the reporter learns from its options that it
  // runs under the CLI and the run's plan: the workers have it by `provide`, a `--merge-reports` run (no workers) by
  // these options alone — its output directory, gate and filter are the command line's, as an unsharded run's.
  const json = Boolean(values.json);
  const ended: Array<{ suite: string; outDir: string }> = [];
  const reporter = [
    REPORTER_PATH,
    { cli: true, plan, onEnded: (s: typeof ended) => void ended.push(...s), ...(json ? { stderr: true } : {}) },
  ];
  const mergeReports = values['merge-reports'] as string | undefined;
  const config = (inline: InlineRun) => {
    const glob = evalGlob(root, files);
    const config = evalConfig({
      include: glob.include,
      concurrency: plan.vitest.maxConcurrency,
      testTimeout: plan.vitest.testTimeout,
    });
    const provide = inline.provide ? { provide: { toolgauge: inline.provide } } : {};
    // The part files live under node_modules, which the eval configuration otherwise leaves out and Vitest would
    // hand to Node as they are: through Vite's module runner, their imports of the eval files are transformed.
    const partFiles = parts > 1 ? { exclude: [], server: { deps: { inline: [PART_FILES] } } } : {};
    // In a checkout under the CLI's bundle, the eval files' toolgauge modules and the reporter load from it.
    const bundle = launcherBundle(process.env);
    return {
      ...config,
      plugins: [...config.plugins, ...(bundle ? [evalBundlePlugin(PACKAGE_ROOT, bundle)] : [])],
      test: {
        ...config.test,
        ...(glob.dir ? { dir: glob.dir } : {}),
        // The run is open and its plan provided: the global setup would have nothing to do, and loading it from
        // source cost Vite's transform of the ~150 modules the launcher reaches.
        ...(inline.provide ? { globalSetup: [] } : {}),
        ...partFiles,
        reporters: ['default', reporter] as never[],
        ...provide,
      },
    };
  };
  const open = (p: RunPlan) =>
    openRun(p, {
      command: 'toolgauge eval',
      // a describeEval suite registers itself in the test worker: the simulator plays no suite of its own here
      suites: [],
      outDir: p.run.outDir ?? 'results',
      noRequests: Boolean(mergeReports),
      smoke: Boolean(values.smoke),
    });
  if (values.watch) {
    const exitCode = await runEvalWatch({
      files,
      root,
      plan,
      config,
      open,
      ended,
      filter: values.filter as string | undefined,
    });
    return { exitCode, ended };
  }
  const exitCode = await runEvalSuites(files, {
    plan,
    root,
    reporter,
    config,
    open,
    shard: shard?.text,
    filter: values.filter as string | undefined,
    blobDir: values['blob-dir'] as string | undefined,
    mergeReports,
    ...(json ? { stdout: process.stderr } : {}),
    interruptLine: cliInterruptLine('toolgauge eval', plan.run.outDir ?? 'results'),
  });
  return { exitCode, ended };
}

/** `--json`'s document: each finalized eval with the summary.json it wrote, and the run's exit code. */
function jsonDocument(ended: readonly EndedEval[], exitCode: number) {
  return { evals: endedEvals(ended), exitCode };
}
