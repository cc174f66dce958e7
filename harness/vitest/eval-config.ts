import { fileURLToPath } from 'node:url';
import { REPORTER_PATH, toolgaugePlugin } from './plugin.ts';

const GLOBAL_SETUP = fileURLToPath(new URL('../builtin/global-setup.ts', import.meta.url));

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
 * starts the simulator (or checks the endpoint) and the reporter writes summary.json, report.md and the gate.
 */
export function evalConfig(o: EvalConfigOptions = {}) {
  return {
    plugins: [toolgaugePlugin()],
    test: {
      include: o.include ?? ['**/*.eval.ts'],
      exclude: ['**/node_modules/**'],
      globalSetup: [GLOBAL_SETUP],
      reporters: ['default', REPORTER_PATH],
      pool: 'forks' as const,
      maxWorkers: 1,
      isolate: false,
      maxConcurrency: o.concurrency ?? 4,
      testTimeout: o.testTimeout ?? 1_800_000,
      hookTimeout: 600_000,
      // Transformed modules are cached on disk between runs (toolgauge's own ~200 modules each time otherwise).
      experimental: { fsModuleCache: true },
      // toolgauge ships TypeScript: let Vite transform it when it is installed under node_modules.
      server: { deps: { inline: [/[\\/]toolgauge[\\/]/] } },
    },
  };
}
