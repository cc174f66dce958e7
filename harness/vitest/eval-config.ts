import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MODULE_EXT } from '../core/paths.ts';
import type { RunPlan, VitestOptions } from '../kit/plan.ts';
import { builtinEvalProject } from './eval-project.ts';
import { toolgaugePlugin } from './plugin.ts';
import { preforkedPool, type Prefork } from './prefork.ts';
import { prethreadedPool, type Prethread } from './prethread.ts';

/** The global setup of a project's own eval files (Vitest loads global setup files by path). */
export const EVAL_GLOBAL_SETUP = fileURLToPath(new URL(`./eval-global-setup${MODULE_EXT}`, import.meta.url));

/**
 * A CLI run of built-in suites: the eval project as the whole configuration, so Vitest need not bundle and load
 * vitest.config.ts (and the unit project's helpers) first. With `inline`, the run is open already (the launcher) and
 * its plan is provided, and the reporter is an instance: Vitest's main process then loads no toolgauge module through
 * Vite before it starts the test worker. `env`: the launcher's own variables (the CLI bundle, the default reporter).
 */
export function builtinEvalConfig(
  vitest: VitestOptions,
  env: NodeJS.ProcessEnv,
  inline: {
    provide?: RunPlan | undefined;
    reporter: object;
    reporterPath: string;
    prefork?: Prefork | undefined;
    prethread?: Prethread | undefined;
  },
) {
  const project = builtinEvalProject(vitest);
  return {
    plugins: [toolgaugePlugin(inline.reporterPath)],
    resolve: { alias: workerBundleAliases(launcherBundle(env)) },
    test: {
      ...project,
      ...(inline.provide ? { provide: { toolgauge: inline.provide } } : {}),
      // A worker started before Vitest (prefork.ts) becomes the run's worker when it is exactly what Vitest asks for.
      ...(inline.prefork ? { pool: preforkedPool(inline.prefork) } : {}),
      // Or a thread of this process (prethread.ts): its V8 flags are the process's, so it gets none of its own.
      ...(inline.prethread ? { pool: prethreadedPool(inline.prethread), execArgv: [] } : {}),
      // From the sources, transformed modules are cached on disk between runs. The package's dist/ is JavaScript the
      // worker loads natively, and a cache there would be written inside the installed package.
      experimental: { fsModuleCache: MODULE_EXT === '.ts' },
      // Nor does Vitest keep its results (the order of the next run's files) inside the installed package.
      ...(MODULE_EXT === '.js' ? { cache: false as const } : {}),
      reporters: [...(env.TOOLGAUGE_QUIET_DEFAULT_REPORTER ? [] : ['default' as const]), inline.reporter] as never[],
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
 * What an early test worker (prefork.ts) may load before the run starts: the suites' definition modules as the worker
 * will import them (`modules`: each suite's source path, e.g. `harness/toolhop/suite.ts`, and its built file; the
 * CLI bundle's file when there is a bundle; none from TypeScript sources, which only Vite's runner loads) and the
 * model client's SDK. File URLs; a module not found is left out.
 */
export function workerPreload(
  bundleDir: string | undefined,
  modules: ReadonlyArray<{ source: string; built: string | null }>,
): string[] {
  const out: string[] = [];
  const entries = bundleDir ? bundleEntries(bundleDir) : {};
  for (const m of modules) {
    const file = bundleDir ? (entries[m.source] ? join(bundleDir, entries[m.source]!) : null) : m.built;
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
export function bundleEntries(dir: string): Record<string, string> {
  try {
    return JSON.parse(readFileSync(join(dir, 'worker-entries.json'), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}
