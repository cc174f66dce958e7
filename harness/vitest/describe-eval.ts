import { UsageError } from '../core/errors.ts';
import { eachName } from '../kit/eval/each.ts';
import { evalRunOptions, evalSuite, type EvalOptions } from '../kit/eval/suite.ts';
import type { TaskOutput } from '../kit/eval/types.ts';
import { runPlan } from './context.ts';
import { currentEvalPart } from './eval-parts.ts';
import { defineSuiteTests } from './suite-tests.ts';

/**
 * The evals defined so far in this worker's run. A file that defines several (two describeEval calls, or
 * describeEval.each) makes `--out-dir` their parent, as several eval files do (the CLI says so in the plan): its evals
 * all register while the file is imported, before the first block loads its cases and takes its folder. The parts
 * of one eval file (`--parts`) define the one eval again.
 */
let defined: { runId: string; names: Set<string> } | undefined;

function defineEval<TInput, TExpected, TOutput>(
  name: string,
  options: EvalOptions<TInput, TExpected, TOutput>,
  mode?: 'skip' | 'only',
): Promise<void> {
  const suite = evalSuite(name, options);
  const kit = runPlan();
  if (defined?.runId !== kit.runId) defined = { runId: kit.runId, names: new Set() };
  // A skipped eval writes nothing: it does not make the run one of several.
  if (mode !== 'skip') defined.names.add(name);
  const names = defined.names;
  const def: typeof suite = {
    ...suite,
    outDir: (run, settings) => suite.outDir(names.size > 1 ? { ...run, outDirHoldsEvals: true } : run, settings),
  };
  // Loaded as a part of its file (`toolgauge eval --parts`): only that part's cases are this module's tests.
  const slice = currentEvalPart();
  return defineSuiteTests(def, {
    kit,
    ...(slice ? { slice } : {}),
    settings: { threshold: options.threshold ?? 1 },
    ...evalRunOptions(name, options),
    ...(mode ? { mode } : {}),
  });
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
        const dup = names.findIndex((n, i) => names.indexOf(n) !== i);
        if (dup >= 0)
          throw new UsageError(
            `describeEval.each: rows ${names.indexOf(names[dup]!)} and ${dup} are both named '${names[dup]}'; put a $field or %s in the name`,
          );
        return Promise.all(table.map((row, i) => defineEval(names[i]!, options(row, i)))).then(() => {});
      };
    },
  },
);
