import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { builtinEvalConfig, EVAL_WORKER_EXEC_ARGV, evalConfig, workerPreload } from './eval-config.ts';
import { prepareEvalRun } from './global-setup.ts';
import type { KitConfig } from '../kit/config.ts';
import type { AnySuite } from '../kit/types.ts';
import { PACKAGE_ROOT } from '../core/paths.ts';
import { REPORTER_PATH } from './plugin.ts';
import { discardPrefork, preforkVitestWorker, type Prefork } from './prefork.ts';

/**
 * Run eval suites through Vitest's Node API — the project `vitest run --project eval <files>` runs (given inline, so
 * vitest.config.ts is not loaded), or a user's eval files with evalConfig. Built-in suites get their configuration as
 * a value (`inProcess.kc`, provided to the workers); a user's eval files read theirs in the eval global setup, from
 * process.env. Returns the exit code the reporter decided.
 */
export async function runEvalSuites(
  files: string[],
  opts: {
    shard?: string;
    filter?: string;
    reportPath?: string;
    blobDir?: string;
    mergeReports?: string;
    /** Run a user's eval files from their folder with toolgauge's eval configuration (`toolgauge eval`). */
    userRoot?: string;
    /**
     * Built-in suites only: do the global setup's work here (prepareEvalRun) and report with this reporter instance,
     * from modules this process has already loaded, so Vitest's main process loads neither file through Vite before
     * it starts the test worker.
     */
    inProcess?: {
      suites: readonly AnySuite[];
      reporter: object;
      /** The run's configuration, parsed and checked by the CLI (harness/cli/suite-command.ts). */
      kc: KitConfig;
      /** The CLI has checked the endpoint already. */
      endpointChecked: boolean;
    };
    /** The environment the eval config reads (concurrency, time limit, the launcher's worker bundle). */
    env: NodeJS.ProcessEnv;
  },
): Promise<number> {
  // A shard can also leave Vitest's blob report, so a later `--merge-reports DIR` run aggregates all shards
  // exactly as one run would (the toolgauge reporter reads only the tests' meta, which the blobs keep).
  const blob =
    opts.blobDir && opts.shard ? join(resolve(opts.blobDir), `blob-${opts.shard.replace('/', '-')}.json`) : undefined;
  const where = { root: opts.userRoot ?? PACKAGE_ROOT, config: false as const };
  const builtin = opts.inProcess && !opts.userRoot && !opts.mergeReports ? opts.inProcess : undefined;
  // The test worker starts first, so that it loads while this process prepares the run and loads Vitest.
  const early = builtin
    ? preforkVitestWorker(
        EVAL_WORKER_EXEC_ARGV,
        workerPreload(
          opts.env,
          builtin.suites.map((s) => s.name),
        ),
      )
    : undefined;
  try {
    const prepared = builtin
      ? await prepareEvalRun(builtin.suites, {
          filter: opts.filter ?? null,
          sharded: !!opts.shard,
          carryTraces: !!blob,
          kc: builtin.kc,
          endpointChecked: builtin.endpointChecked,
        })
      : undefined;
    // `--merge-reports` has no global setup: the reporter instance starts from the CLI's configuration and the blobs.
    const inline =
      opts.inProcess && !opts.userRoot
        ? {
            reporter: opts.inProcess.reporter,
            ...(prepared ? { provide: prepared.kc } : {}),
            ...(early ? { prefork: early } : {}),
          }
        : undefined;
    // Loaded by path (a user's evals), the reporter learns from its options that it runs under the CLI.
    const reporter = opts.inProcess?.reporter ?? [REPORTER_PATH, { cli: true }];
    try {
      return await runVitest(files, opts, where, blob, reporter, inline);
    } finally {
      await prepared?.close();
    }
  } finally {
    if (early) discardPrefork(early);
  }
}

async function runVitest(
  files: string[],
  opts: Parameters<typeof runEvalSuites>[1],
  where: { root: string; config: false },
  blob: string | undefined,
  reporter: object,
  inline: { provide?: KitConfig; reporter: object; prefork?: Prefork } | undefined,
): Promise<number> {
  // Vitest's Node API is loaded only now, after prepareEvalRun has started the sandbox's workers: they boot on the
  // other core while this process spends about 0.3 s loading Vite and Vitest.
  const { startVitest } = await import('vitest/node');
  const vitest = await startVitest(
    'test',
    opts.mergeReports ? [] : files,
    {
      ...where,
      watch: false,
      ...(opts.shard ? { shard: opts.shard } : {}),
      ...(opts.filter ? { testNamePattern: opts.filter } : {}),
      ...(opts.mergeReports ? { mergeReports: resolve(opts.mergeReports) } : {}),
      ...(blob ? { reporters: ['default', reporter, ['blob', { outputFile: blob }]] as never } : {}),
    },
    opts.userRoot ? userEvalConfig(files, opts.userRoot, opts.env, reporter) : builtinEvalConfig(opts.env, inline),
  );
  await vitest?.close();
  const code = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0);
  if (opts.reportPath && existsSync(opts.reportPath))
    process.stdout.write('\n' + readFileSync(opts.reportPath, 'utf8'));
  return code;
}

/** A user's eval files with toolgauge's eval configuration, its reporter told it runs under the CLI. */
function userEvalConfig(files: string[], root: string, env: NodeJS.ProcessEnv, reporter: object) {
  const config = evalConfig({
    include: files.map((f) => relative(root, resolve(root, f))),
    concurrency: concurrencyOf(env),
  });
  return { ...config, test: { ...config.test, reporters: ['default', reporter] as never[] } };
}

export function reportPathOf(outDir: string): string {
  return join(outDir, 'report.md');
}

/** `--concurrency` (TOOLGAUGE_CONCURRENCY): instances in flight in the worker, as well as the model client's limit. */
function concurrencyOf(env: NodeJS.ProcessEnv): number | undefined {
  const n = Number(env.TOOLGAUGE_CONCURRENCY);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
