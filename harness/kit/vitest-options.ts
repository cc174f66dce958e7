import type { RunConfig } from '../core/config.ts';

// Its own module, apart from the plan (harness/kit/plan.ts, which re-exports it): the repository's vitest.config.ts
// imports it, and Vitest hashes the text of every module a config file imports into the cache key of every module
// it transforms; the plan's imports (the parsers, the Python front-end) made that about 400 kB per module.

/** The eval project's Vitest options: one worker, instances concurrent inside it. */
export interface VitestOptions {
  /** Instances in flight at once in the worker: the run's concurrency (also the model client's limit). */
  maxConcurrency: number;
  /** One instance's time limit. */
  testTimeout: number;
  /** The global setup's and the hooks' limit (a pyodide pool's first start, a data download). */
  hookTimeout: number;
}

/** Vitest's options from the run configuration: every entry point's Vitest config reads them from here. */
export function vitestOptionsOf(run: Pick<RunConfig, 'concurrency' | 'instanceTimeoutMs'>): VitestOptions {
  return { maxConcurrency: run.concurrency, testTimeout: run.instanceTimeoutMs, hookTimeout: 600_000 };
}
