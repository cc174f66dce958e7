import { TestRunner } from 'vitest';
import type { RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { eachName } from '../kit/eval/each.ts';
import { evalRunOptions, evalSuite, type EvalOptions } from '../kit/eval/suite.ts';
import type { TaskOutput } from '../kit/eval/types.ts';
import { refuseOneModelRun } from '../kit/one-model-run.ts';
import { evalOutDir } from '../kit/outdir.ts';
import type { RunPlan } from '../kit/plan.ts';
import { runPlan } from './context.ts';
import { currentEvalPart } from './eval-parts.ts';
import { EvalNames } from './eval-names.ts';
import { evalNamesOf, namesOnly } from './eval-names-only.ts';
import { defineSuiteTests } from './suite-tests.ts';

/**
 * The evals defined so far in this worker's run (eval-names.ts refuses a name taken twice). A file that defines
 * several (two describeEval calls, or describeEval.each) makes `--out-dir` their parent, as several eval files do
 * (the CLI says so in the plan): its evals all register while the file is imported, before the first block loads
 * its cases and takes its folder. The parts of one eval file (`--parts`) define the one eval again.
 */
let defined: EvalNames | undefined;

/** The run's check of its evals, made once, before the first eval loads its cases (checkRun). */
let checked: { runId: string; done: Promise<void> } | undefined;

function defineEval<TInput, TExpected, TOutput>(
  name: string,
  options: EvalOptions<TInput, TExpected, TOutput>,
  mode?: 'skip' | 'only',
): Promise<void> {
  // Evaluated for its names only (eval-names-only.ts): the name is all this call gives.
  const onName = namesOnly();
  if (onName) {
    if (mode !== 'skip') onName(name);
    return Promise.resolve();
  }
  const suite = evalSuite(name, options);
  const kit = runPlan();
  if (defined?.runId !== kit.runId) defined = new EvalNames(kit.runId);
  // Called while Vitest imports (collects) the file: the collector knows which file, in this collection of it.
  const collector = TestRunner.getCurrentSuite();
  const file = collector.file ?? collector.suite?.file;
  const slice = currentEvalPart();
  // A skipped eval writes nothing: it takes no name and does not make the run one of several.
  if (mode !== 'skip' && file) defined.define(name, { file: slice?.file ?? file.filepath, collection: file });
  const names = defined;
  const runOf = (run: RunConfig): RunConfig => (names.size > 1 ? { ...run, outDirHoldsEvals: true } : run);
  const def: typeof suite = {
    ...suite,
    outDir: (run, settings) => suite.outDir(runOf(run), settings),
    load: async (run, settings) => {
      await checkRun(kit, names, runOf(run));
      return suite.load(run, settings);
    },
  };
  // Loaded as a part of its file (`toolgauge eval --parts`): only that part's cases are this module's tests.
  return defineSuiteTests(def, {
    kit,
    ...(slice ? { slice } : {}),
    settings: { threshold: options.threshold ?? 1 },
    ...evalRunOptions(name, options),
    ...(mode ? { mode } : {}),
  });
}

/**
 * Once per run, before its first eval loads its cases (so before any case runs or any folder is taken): the evals
 * of the run's eval files not collected yet are learnt (eval-names-only.ts), which refuses a name defined twice, and
 * with a model list each eval's folder in `--out-dir` is refused if it holds a one-model run. Every eval of the run
 * meets the same refusal.
 */
function checkRun(kit: RunPlan, names: EvalNames, run: RunConfig): Promise<void> {
  if (checked?.runId !== kit.runId)
    checked = {
      runId: kit.runId,
      done: (async () => {
        for (const file of kit.evalFiles ?? []) {
          if (names.hasFile(file)) continue;
          const collection = {};
          await evalNamesOf(file, kit.runId, (name) => names.define(name, { file, collection }));
        }
        const holdsEvals = run.outDirHoldsEvals || names.size > 1;
        if (run.modelFolder && run.outDir !== undefined && holdsEvals)
          for (const name of names.names()) {
            const dir = evalOutDir({ ...run, outDirHoldsEvals: true, modelFolder: undefined }, name);
            refuseOneModelRun(dir, `the folder of the eval '${name}' in --out-dir, ${dir},`);
          }
      })(),
    };
  return checked.done;
}

/**
 * A user's tool-calling eval as Vitest tests (docs/eval.md): one test per case named `<name> › <id>`, scored by each
 * scorer, with summary.json, report.md, gates, trials, resume, shards and `report --compare` from the kit.
 *
 *   describeEval('arith', { data, tools, task: toolLoop({ system, maxTurns: 5 }), scorers: [scorers.answerMatches()] })
 *
 * `describeEval.skip` and `describeEval.only` are Vitest's `describe.skip` / `describe.only`;
 * `describeEval.each(table)(template, (row, index) => options)` defines one eval per row, named as `describe.each`
 * names its blocks (`$field`, `%s`, `%#`).
 */
export const describeEval = Object.assign(
  function describeEval<TInput = string, TExpected = unknown, TOutput = TaskOutput>(
    name: string,
    options: EvalOptions<TInput, TExpected, TOutput>,
  ): Promise<void> {
    return defineEval(name, options);
  },
  {
    /** The eval is skipped: nothing loaded, nothing run, no output written. */
    skip<TInput = string, TExpected = unknown, TOutput = TaskOutput>(
      name: string,
      options: EvalOptions<TInput, TExpected, TOutput>,
    ): Promise<void> {
      return defineEval(name, options, 'skip');
    },
    /** Only this eval (and other `.only` blocks) runs in its file. */
    only<TInput = string, TExpected = unknown, TOutput = TaskOutput>(
      name: string,
      options: EvalOptions<TInput, TExpected, TOutput>,
    ): Promise<void> {
      return defineEval(name, options, 'only');
    },
    /** One eval per row of the table, named by the template (as Vitest's `describe.each`). */
    each<Row>(table: readonly Row[]) {
      return <TInput = string, TExpected = unknown, TOutput = TaskOutput>(
        template: string,
        options: (row: Row, index: number) => EvalOptions<TInput, TExpected, TOutput>,
      ): Promise<void> => {
        const names = table.map((row, i) => eachName(template, row, i));
        const onName = namesOnly();
        if (onName) {
          // Evaluated for its names only (eval-names-only.ts): the rows' options are not made.
          for (const n of names) onName(n);
          return Promise.resolve();
        }
        const dup = names.findIndex((n, i) => names.indexOf(n) !== i);
        if (dup >= 0)
          throw new UsageError(
            `describeEval.each: rows ${names.indexOf(names[dup]!)} and ${dup} are both named '${names[dup]}'; put a $field or %s in the name`,
          );
        const all = Promise.all(table.map((row, i) => defineEval(names[i]!, options(row, i)))).then(() => {});
        // As each block's own promise (suite-tests.ts): the file need not await it, and a block's failure is the
        // file's error, not also an unhandled rejection said a second time.
        all.catch(() => undefined);
        return all;
      };
    },
  },
);
