import { evalSuite, type EvalOptions } from '../kit/eval/suite.ts';
import type { TaskOutput } from '../kit/eval/types.ts';
import { defineSuiteTests } from './suite-tests.ts';

/**
 * A user's tool-calling eval as Vitest tests (docs/eval.md): one test per case named `<name> › <id>`, scored by each
 * scorer, with summary.json, report.md, gates, trials, resume, shards and `report --compare` from the kit.
 *
 *   describeEval('arith', { data, tools, task: toolLoop({ system, maxTurns: 5 }), scorers: [scorers.answerMatches()] })
 */
export function describeEval<TInput = string, TExpected = unknown, TOutput = TaskOutput>(
  name: string,
  options: EvalOptions<TInput, TExpected, TOutput>,
): Promise<void> {
  const def = evalSuite(name, options);
  return defineSuiteTests(def, { settings: { threshold: options.threshold ?? 1 } });
}
