import { fileURLToPath } from 'node:url';
import { MODULE_EXT } from '../core/paths.ts';
import type { VitestOptions } from '../kit/vitest-options.ts';

// Its own module, apart from eval-config.ts (the CLI's whole configuration, with its prefork and prethread pools):
// the repository's vitest.config.ts imports it, and every module a config file imports is bundled and evaluated on
// each plain `vitest run`, and hashed into the cache key of every module Vitest transforms. A call of import.meta's
// `resolve` among them (eval-config.ts has one) would also make Vite register Node's module hooks: on Node 20 a
// thread that every later import in that process waits on. Vite looks for that call in the text, comments included.

/**
 * Node flags of the eval worker. Young-generation semi-spaces of 8 MiB, between V8's 16 (over 182 ToolHop rows the
 * whole run's peak was 515–521 MiB with 16 against 454–503 with 2) and 2 (which let a run of 2 × 10^4 cases spend a
 * third of the worker's CPU in the collector); `--optimize-for-size` saved another 50 MiB but cost Maze 40% more CPU.
 * The old generation grows by half of what survives a full collection, where V8 lets it grow up to fourfold: a run of
 * 10^4 cases peaked at 405 MiB in this worker without it and 220 with it, for about a fifth more CPU. Neither is left
 * on the command line for the process's life: any V8 flag that differs from Node's build makes V8 refuse Node's
 * built-in code cache, so the worker's first module (eval-worker-start.cjs) sets the semi-space size back once the
 * heap has it and hands the heap's growth over to be set when the suite's cases are loaded (suite-tests.ts).
 */
export const EVAL_WORKER_EXEC_ARGV = [
  '--max-semi-space-size=8',
  '--require',
  fileURLToPath(new URL('./eval-worker-start.cjs', import.meta.url)),
];

/**
 * The built-in suites' eval project (`suites/**\/*.eval.ts`): one worker shares one model client (its concurrency
 * limit is the run's) and one sandbox pool across the suite's files; instances run concurrently inside each file.
 * `vitest` is the plan's (harness/kit/plan.ts, vitestOptionsOf); `globalSetup` the built-in suites' global setup file
 * (harness/builtin/global-setup.ts), named by the configuration's author. vitest.config.ts uses it as its `eval`
 * project, and the CLI runs it without loading that file (eval-config.ts, builtinEvalConfig, no global setup: the run
 * is open).
 */
export function builtinEvalProject(vitest: VitestOptions, globalSetup: readonly string[] = []) {
  return {
    name: 'eval',
    // `.ts` in the repository, `.js` in the package's dist/.
    include: [`suites/**/*.eval${MODULE_EXT}`],
    globalSetup: [...globalSetup],
    execArgv: EVAL_WORKER_EXEC_ARGV,
    pool: 'forks' as const,
    maxWorkers: 1,
    isolate: false,
    ...vitest,
  };
}
