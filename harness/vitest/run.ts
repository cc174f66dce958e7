import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunPlan } from '../kit/plan.ts';
import type { OpenedRun } from '../launch/open-run.ts';
import { PACKAGE_ROOT } from '../core/paths.ts';
import { EVAL_WORKER_EXEC_ARGV } from './eval-project.ts';
import { setLateV8Flags } from '../core/late-v8-flags.ts';
import { onInterrupt } from './interrupt.ts';
import { discardPrefork, preforkVitestWorker, type Prefork } from './prefork.ts';
import { commitNativeMemoryOnDemand } from './native-allocator.ts';
import { discardPrethread, prestartVitestThread, type Prethread } from './prethread.ts';

/** What the run's Vitest configuration is built with, once the run is open. */
export interface InlineRun {
  /** The opened plan, provided to the workers (undefined for `--merge-reports`: the reporter reads the blobs). */
  provide: RunPlan | undefined;
  /** The early test worker, for the configuration's pool: a process (prefork.ts) or a thread (prethread.ts). */
  prefork?: Prefork | undefined;
  prethread?: Prethread | undefined;
}

/** Where a run's instances run: a thread of the CLI's process, or a forked worker process. */
export type EvalWorkerKind = 'thread' | 'fork';

/**
 * Run eval files through Vitest's Node API on a plan the CLI built — the built-in suites' eval project, or a user's
 * eval files. The test worker starts first (when `preload` is given), the launcher's `open` opens the run
 * (harness/launch/open-run.ts) meanwhile, Vitest runs with the configuration `config` builds around the opened plan
 * (provided to the workers: the global setup then has nothing to do), and the run is closed on every way out.
 * Returns the exit code the reporter decided.
 */
export async function runEvalSuites(
  files: string[],
  opts: {
    plan: RunPlan;
    /** Opens the run (the launcher); called once the test worker is on its way. */
    open: (plan: RunPlan) => Promise<OpenedRun>;
    /** The Vitest configuration of the run (given inline: no config file is loaded). */
    config: (inline: InlineRun) => object;
    /** Modules the early test worker loads while the run opens; none: no early worker. */
    preload?: string[] | undefined;
    /** The early worker's kind (default: a forked process); the configuration's pool takes it (builtinEvalConfig). */
    worker?: EvalWorkerKind | undefined;
    /** The folder Vitest runs from (a user's project; default: the package's root). */
    root?: string | undefined;
    shard?: string | undefined;
    filter?: string | undefined;
    reportPath?: string | undefined;
    blobDir?: string | undefined;
    mergeReports?: string | undefined;
    /** The reporter (an instance, or a path with options), repeated beside the blob reporter. */
    reporter: unknown;
    /** Where Vitest writes what it would print on stdout (`toolgauge eval --json`: stderr). */
    stdout?: NodeJS.WritableStream | undefined;
    /** The line SIGINT or SIGTERM prints (what was kept, how to resume), given the run's plan; the process then exits 130 or 143. */
    interruptLine?: ((plan: RunPlan) => string) | undefined;
  },
): Promise<number> {
  // A shard can also leave Vitest's blob report, so a later `--merge-reports DIR` run aggregates all shards
  // exactly as one run would (the toolgauge reporter reads only the tests' meta, which the blobs keep).
  const blob =
    opts.blobDir && opts.shard ? join(resolve(opts.blobDir), `blob-${opts.shard.replace('/', '-')}.json`) : undefined;
  // Before the early worker is started: it is adopted only if its environment is the one Vitest gives its worker.
  commitNativeMemoryOnDemand(process.env);
  // The test worker starts first, so that it loads while this process opens the run and loads Vitest.
  const start = opts.preload && !opts.mergeReports;
  const early =
    start && opts.worker !== 'thread' ? preforkVitestWorker(EVAL_WORKER_EXEC_ARGV, opts.preload) : undefined;
  const thread = start && opts.worker === 'thread' ? prestartVitestThread(opts.preload) : undefined;
  let offInterrupt: (() => void) | undefined;
  try {
    const plan: RunPlan = {
      ...opts.plan,
      filter: opts.filter ?? null,
      sharded: !!opts.shard,
      ...(blob ? { carryTraces: true } : {}),
    };
    const interruptLine = opts.interruptLine;
    if (interruptLine) offInterrupt = onInterrupt(() => interruptLine(plan));
    const opened = await opts.open(plan);
    try {
      // `--merge-reports` provides nothing: the reporter starts from the CLI's plan and the blobs.
      const config = opts.config({
        provide: opts.mergeReports ? undefined : opened.plan,
        prefork: early,
        prethread: thread,
      });
      return await runVitest(files, opts, blob, config);
    } finally {
      await opened.close();
    }
  } finally {
    offInterrupt?.();
    if (early) discardPrefork(early);
    if (thread) await discardPrethread(thread);
  }
}

async function runVitest(
  files: string[],
  opts: Parameters<typeof runEvalSuites>[1],
  blob: string | undefined,
  config: object,
): Promise<number> {
  // Vitest's Node API is loaded only now, after the launcher has started the sandbox's workers: they boot on the
  // other core while this process spends about 0.3 s loading Vite and Vitest.
  const { startVitest } = await import('vitest/node');
  // What the command's process handed over (`toolgauge eval`'s heap growth), now that Vite and Vitest are loaded.
  setLateV8Flags();
  const vitest = await startVitest(
    'test',
    opts.mergeReports ? [] : files,
    {
      root: opts.root ?? PACKAGE_ROOT,
      config: false,
      watch: false,
      ...(opts.shard ? { shard: opts.shard } : {}),
      ...(opts.filter ? { testNamePattern: opts.filter } : {}),
      ...(opts.mergeReports ? { mergeReports: resolve(opts.mergeReports) } : {}),
      ...(blob ? { reporters: ['default', opts.reporter, ['blob', { outputFile: blob }]] as never } : {}),
    },
    config,
    opts.stdout ? { stdout: opts.stdout as NodeJS.WriteStream } : undefined,
  );
  await vitest?.close();
  const code = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0);
  if (opts.reportPath && existsSync(opts.reportPath))
    process.stdout.write('\n' + readFileSync(opts.reportPath, 'utf8'));
  return code;
}

export function reportPathOf(outDir: string): string {
  return join(outDir, 'report.md');
}
