import { newRunId, type RunPlan } from '../kit/plan.ts';
import type { OpenedRun } from '../launch/open-run.ts';
import { setLateV8Flags } from '../core/late-v8-flags.ts';
import { PACKAGE_ROOT } from '../core/paths.ts';
import type { InlineRun } from './run.ts';
import { commitNativeMemoryOnDemand } from './native-allocator.ts';

/** What one run of the watch loop ended with. */
export interface WatchedRun {
  /** 1 for the first run, then one more per re-run. */
  index: number;
  /** The exit code the run end decided for this run (as a one-off `toolgauge eval` would exit). */
  exitCode: number;
}

/**
 * Run eval files in Vitest's watch mode: the first run, then a re-run of the affected files whenever an eval file or
 * a module it imports changes (Vitest's own module graph decides), until `signal` aborts. Each run is a run of its
 * own: a fresh copy of the plan under a new run id (the output directory's marker and lock are per run id, so a
 * re-run starts fresh), opened by `open` before its tests start, provided to the workers, and closed once its end
 * has been reported. Returns the exit code of the last run, or of a re-run that could not be opened (its error is
 * passed to `onOpenError` and ends the loop).
 */
export async function watchEvalSuites(
  files: string[],
  opts: {
    plan: RunPlan;
    open: (plan: RunPlan) => Promise<OpenedRun>;
    config: (inline: InlineRun) => object;
    root?: string | undefined;
    filter?: string | undefined;
    signal: AbortSignal;
    /** Called after each run's end was reported (its summaries written). */
    onRun?: (run: WatchedRun) => void | Promise<void>;
    /** A re-run whose `open` failed (an endpoint that stopped answering): the loop ends with its error. */
    onOpenError?: (err: unknown) => void;
    stdout?: NodeJS.WritableStream | undefined;
  },
): Promise<number> {
  const planOfRun = (): RunPlan => ({
    ...structuredClone(opts.plan),
    runId: newRunId(),
    filter: opts.filter ?? null,
    sharded: false,
  });
  let current: OpenedRun | undefined = await opts.open(planOfRun());
  let index = 1;
  let lastCode = 0;
  let openFailed: { code: number } | undefined;
  const closeCurrent = async () => {
    const c = current;
    current = undefined;
    await c?.close();
  };
  let stopLoop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stopLoop = resolve;
    if (opts.signal.aborted) resolve();
    else opts.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  // Vitest reports a run's end to every reporter at once, and only then `onWatcherStart`: by that time the toolgauge
  // reporter has written the run's summaries and set the exit code.
  let ended = false;
  const signalsBefore = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  // Vitest's logger exits the process 1 ms after a SIGINT or SIGTERM: the loop stops Vitest itself, then the run.
  const dropVitestSignalHandlers = () => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const)
      for (const l of process.listeners(sig)) if (!signalsBefore[sig].includes(l)) process.off(sig, l);
  };
  type Started = Awaited<ReturnType<typeof import('vitest/node').startVitest>>;
  let running: Started | undefined; // known from Vitest's first report, before its first run ends
  const runEnds = {
    onInit: (v: Started) => {
      running = v;
      dropVitestSignalHandlers();
      // Vitest's own quit (`q`, or Ctrl-C on a terminal, which then exits the process) closes the run first.
      v.onClose(async () => {
        await closeCurrent();
        stopLoop();
      });
    },
    onTestRunEnd: () => void (ended = true),
    onWatcherStart: async () => {
      if (!ended) return;
      ended = false;
      await closeCurrent();
      lastCode = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0);
      process.exitCode = undefined; // each run decides its own code
      await opts.onRun?.({ index, exitCode: lastCode });
    },
  };
  const base = opts.config({ provide: current.plan }) as { test?: { reporters?: unknown[] } };
  const config = { ...base, test: { ...base.test, reporters: [...(base.test?.reporters ?? []), runEnds] } };
  let vitest: Started | undefined;
  // A stop cancels the run in progress (its tests end as interrupted, its end is reported) rather than waiting for it.
  const cancel = () => void running?.cancelCurrentRun('keyboard-input');
  opts.signal.addEventListener('abort', cancel, { once: true });
  try {
    commitNativeMemoryOnDemand(process.env);
    const { startVitest } = await import('vitest/node');
    setLateV8Flags();
    const started = startVitest(
      'test',
      files,
      {
        root: opts.root ?? PACKAGE_ROOT,
        config: false,
        watch: true,
        ...(opts.filter ? { testNamePattern: opts.filter } : {}),
      },
      config as never,
      opts.stdout ? { stdout: opts.stdout as NodeJS.WriteStream } : undefined,
    );
    // The first run happens inside startVitest: a stop meanwhile closes Vitest, which ends it.
    if ((await Promise.race([started, stopped])) === undefined) {
      await running?.close();
      await started.catch(() => undefined);
      return openFailed?.code ?? lastCode;
    }
    const v = (vitest = await started);
    v.onTestsRerun(async () => {
      await closeCurrent();
      index += 1;
      try {
        current = await opts.open(planOfRun());
        v.provide('toolgauge', current.plan);
      } catch (err) {
        // Nothing may run on a plan whose simulator is gone: the loop ends here.
        openFailed = { code: 2 };
        opts.onOpenError?.(err);
        stopLoop();
      }
    });
    await stopped;
  } finally {
    opts.signal.removeEventListener('abort', cancel);
    await (vitest ?? running)?.close();
    await closeCurrent();
  }
  return openFailed?.code ?? lastCode;
}
