import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MODULE_EXT } from '../core/paths.ts';
import type { KitConfig } from '../kit/config.ts';
import { REPORTER_PATH, toolgaugePlugin } from './plugin.ts';
import { preforkedPool, type Prefork } from './prefork.ts';

// Vitest loads global setup files by path: the built-in suites' (loads the suites the run names) and a project's own.
const BUILTIN_GLOBAL_SETUP = fileURLToPath(new URL(`../builtin/global-setup${MODULE_EXT}`, import.meta.url));
const EVAL_GLOBAL_SETUP = fileURLToPath(new URL(`./eval-global-setup${MODULE_EXT}`, import.meta.url));

/**
 * Node flags of the eval worker: young-generation semi-spaces of 2 MiB instead of V8's 16. Over 182 ToolHop rows the
 * whole run's peak is 454–503 MiB with it against 515–521 without; Maze (CPU-bound in this worker) takes 5–15% more
 * CPU. `--optimize-for-size` saved another 50 MiB but cost Maze 40% more CPU, so it is not used here.
 */
export const EVAL_WORKER_EXEC_ARGV = ['--max-semi-space-size=2'];

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
      globalSetup: [EVAL_GLOBAL_SETUP],
      execArgv: EVAL_WORKER_EXEC_ARGV,
      reporters: ['default', REPORTER_PATH],
      pool: 'forks' as const,
      maxWorkers: 1,
      isolate: false,
      maxConcurrency: o.concurrency ?? 4,
      testTimeout: o.testTimeout ?? 1_800_000,
      hookTimeout: 600_000,
      // `vitest --ui` keeps serving the UI without a terminal too (Vitest's own default watches only on a TTY, so
      // from a script the UI ran once and exited); `vitest run --ui` still runs once.
      ...(process.argv.includes('--ui') ? { watch: true } : {}),
      // toolgauge itself is built JavaScript under node_modules, which the worker loads natively (Vite transforms
      // only the eval files): no module cache on disk, which would only hold a few eval files.
    },
  };
}

/**
 * The built-in suites' eval project (`suites/**\/*.eval.ts`): one worker shares one model client (its concurrency
 * limit is the run's) and one sandbox pool across the suite's files; instances run concurrently inside each file.
 * vitest.config.ts uses it as its `eval` project, and the CLI runs it without loading that file (builtinEvalConfig).
 */
export function builtinEvalProject(env: NodeJS.ProcessEnv) {
  return {
    name: 'eval',
    // `.ts` in the repository, `.js` in the package's dist/.
    include: [`suites/**/*.eval${MODULE_EXT}`],
    globalSetup: [BUILTIN_GLOBAL_SETUP],
    execArgv: EVAL_WORKER_EXEC_ARGV,
    pool: 'forks' as const,
    maxWorkers: 1,
    isolate: false,
    maxConcurrency: Number(env.TOOLGAUGE_CONCURRENCY ?? 4) || 4,
    testTimeout: Number(env.TOOLGAUGE_INSTANCE_TIMEOUT_MS ?? 1_800_000),
    hookTimeout: 600_000,
  };
}

/**
 * A CLI run of built-in suites: the eval project as the whole configuration, so Vitest need not bundle and load
 * vitest.config.ts (and the unit project's helpers) first. With `inline`, the global setup's work is already done
 * (run.ts: prepareEvalRun) and the reporter is an instance: Vitest's main process then loads no toolgauge module
 * through Vite before it starts the test worker.
 */
export function builtinEvalConfig(
  env: NodeJS.ProcessEnv,
  inline?: { provide?: KitConfig; reporter: object; prefork?: Prefork },
) {
  const project = builtinEvalProject(env);
  return {
    plugins: [toolgaugePlugin()],
    resolve: { alias: workerBundleAliases(launcherBundle(env)) },
    test: {
      ...project,
      ...(inline ? { globalSetup: [], ...(inline.provide ? { provide: { toolgauge: inline.provide } } : {}) } : {}),
      // A worker started before Vitest (prefork.ts) becomes the run's worker when it is exactly what Vitest asks for.
      ...(inline?.prefork ? { pool: preforkedPool(inline.prefork) } : {}),
      // From the sources, transformed modules are cached on disk between runs. The package's dist/ is JavaScript the
      // worker loads natively, and a cache there would be written inside the installed package.
      experimental: { fsModuleCache: MODULE_EXT === '.ts' },
      // Nor does Vitest keep its results (the order of the next run's files) inside the installed package.
      ...(MODULE_EXT === '.js' ? { cache: false as const } : {}),
      reporters: [
        ...(env.TOOLGAUGE_QUIET_DEFAULT_REPORTER ? [] : ['default' as const]),
        inline?.reporter ?? REPORTER_PATH,
      ] as never[],
    },
  };
}

/**
 * The worker bundle the CLI's launcher named for this very process (bin/cli-bundle.mjs sets the folder and its own
 * pid): a value inherited from the environment would let anyone who sets it choose the test worker's code.
 */
export function launcherBundle(env: NodeJS.ProcessEnv): string | undefined {
  return env.TOOLGAUGE_WORKER_BUNDLE_PID === String(process.pid) ? env.TOOLGAUGE_WORKER_BUNDLE : undefined;
}

/**
 * What an early test worker (prefork.ts) may load before the run starts: each suite's definition module as the worker
 * will import it (the CLI bundle's file, or the package's built JavaScript; none from TypeScript sources, which only
 * Vite's runner loads) and the model client's SDK. File URLs; a module not found is left out.
 */
export function workerPreload(env: NodeJS.ProcessEnv, suites: readonly string[]): string[] {
  const out: string[] = [];
  const dir = launcherBundle(env);
  const entries = dir ? bundleEntries(dir) : {};
  for (const name of suites) {
    const file = dir
      ? entries[`harness/${name}/suite.ts`]
        ? join(dir, entries[`harness/${name}/suite.ts`]!)
        : null
      : MODULE_EXT === '.js'
        ? fileURLToPath(new URL(`../${name}/suite.js`, import.meta.url))
        : null;
    if (file && existsSync(file)) out.push(pathToFileURL(file).href);
  }
  try {
    out.push(import.meta.resolve('openai'));
  } catch {
    // not resolvable from here: the client loads it itself
  }
  return out;
}

/**
 * Under the CLI (bin/cli-bundle.mjs sets TOOLGAUGE_WORKER_BUNDLE), the modules the built-in eval files import resolve
 * to the CLI's esbuild bundle of them: it lies under node_modules, so the test worker loads it natively, a few files
 * in all, instead of fetching and evaluating each of ~200 TypeScript modules through Vite's module runner (about
 * 0.5 s of the worker's start and as much CPU in Vitest's main process). Without the bundle, the sources load.
 */
export function workerBundleAliases(dir: string | undefined): Array<{ find: RegExp; replacement: string }> {
  if (!dir) return [];
  return Object.entries(bundleEntries(dir))
    .filter(([, file]) => existsSync(join(dir, file)))
    .map(([source, file]) => ({
      find: new RegExp(`^(\\.\\./)+${source.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
      replacement: join(dir, file),
    }));
}

/** The bundle's worker files by the source each stands for (`worker-entries.json`); none when it cannot be read. */
function bundleEntries(dir: string): Record<string, string> {
  try {
    return JSON.parse(readFileSync(join(dir, 'worker-entries.json'), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}
