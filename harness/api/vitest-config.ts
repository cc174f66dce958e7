import { DEFAULT_CONCURRENCY, DEFAULT_INSTANCE_TIMEOUT_MS } from '../core/config.ts';
import { vitestOptionsOf } from '../kit/plan.ts';
import { EVAL_GLOBAL_SETUP } from '../vitest/eval-config.ts';
import { EVAL_WORKER_EXEC_ARGV } from '../vitest/eval-project.ts';
import { cachesSourceModules } from '../vitest/source-module-cache.ts';
import { toolgaugePlugin } from '../vitest/plugin.ts';
import { REPORTER_PATH } from '../../reporters/path.ts';

// The Vitest configuration for a project's eval files (the package subpath 'toolgauge/vitest-config').

export interface EvalConfigOptions {
  /** Eval files (globs); default `**\/*.eval.ts`. */
  include?: string[];
  /** Instances in flight at once in the worker (the model client's own limit applies too). Default 4. */
  concurrency?: number;
  /** Per-instance time limit in ms. Default 30 minutes. */
  testTimeout?: number;
}

/**
 * The Vitest configuration for eval files, for a project that depends on toolgauge:
 *
 *   // vitest.config.ts
 *   import { defineConfig } from 'vitest/config';
 *   import { evalConfig } from 'toolgauge/vitest-config';
 *   export default defineConfig(evalConfig({ include: ['evals/**\/*.eval.ts'] }));
 *
 * One worker shares one model client and one sandbox pool; instances run concurrently inside it; the global setup
 * opens the run (simulator or endpoint check, harness/launch/open-run.ts) and the reporter writes summary.json,
 * report.md and the gate.
 */
export function evalConfig(o: EvalConfigOptions = {}) {
  const vitest = vitestOptionsOf({
    concurrency: o.concurrency ?? DEFAULT_CONCURRENCY,
    instanceTimeoutMs: o.testTimeout ?? DEFAULT_INSTANCE_TIMEOUT_MS,
  });
  return {
    plugins: [toolgaugePlugin(REPORTER_PATH)],
    test: {
      include: o.include ?? ['**/*.eval.ts'],
      exclude: ['**/node_modules/**'],
      globalSetup: [EVAL_GLOBAL_SETUP],
      execArgv: EVAL_WORKER_EXEC_ARGV,
      reporters: ['default', REPORTER_PATH],
      pool: 'forks' as const,
      maxWorkers: 1,
      isolate: false,
      ...vitest,
      // `vitest --ui` keeps serving the UI without a terminal too (Vitest's own default watches only on a TTY, so
      // from a script the UI ran once and exited); `vitest run --ui` still runs once.
      ...(process.argv.includes('--ui') ? { watch: true } : {}),
      ...(cachesSourceModules(process.cwd()) ? { experimental: { fsModuleCache: true } } : {}),
    },
  };
}
