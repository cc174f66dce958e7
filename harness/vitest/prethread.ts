// A test worker as a thread of the CLI's process, started before Vitest is: the thread twin of prefork.ts. A forked
// worker is a second Node process (its own heap, code and allocator arenas, about 25 MiB more at a 182-row ToolHop
// run's peak than the same worker as a thread). The CLI starts Vitest's `threads` worker program itself, with the
// command line and environment Vitest would give it, so that it loads while this thread loads Vite and Vitest; the
// run's pool (`prethreadedPool`) hands Vitest that thread when what Vitest asks for is exactly what was started, else
// it starts a fresh one as Vitest's `threads` pool does and the early thread is ended.
//
// What a thread changes: the instances share this process, so a crash of the process ends the run (every finished
// instance is on disk already: the journal is written as each finishes, and --resume runs the rest); a thread that
// dies alone (out of heap) is reported as a dead worker is. V8's flags are the process's: the young generation is
// set per thread (`resourceLimits`), the heap's growth for the process (EVAL_THREAD_V8_FLAGS). A thread cannot
// chdir and receives no signals, which no built-in suite's eval code needs.
import { setFlagsFromString } from 'node:v8';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { PoolOptions, PoolRunnerInitializer, PoolWorker } from 'vitest/node';
import { setThreadHeapV8Flags } from '../core/thread-heap-v8-flags.ts';
import { expectedWorkerLaunch, preloadModule, sameLaunch } from './prefork.ts';

/** A test worker thread started early, and what it was started with. */
export interface Prethread {
  readonly worker: Worker;
  readonly entrypoint: string;
  readonly execArgv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether a pool took the thread (else it is ended when the run's Vitest has closed). */
  adopted: boolean;
  /** Set once the thread has exited. */
  exited: boolean;
}

/** The pool's name in Vitest's configuration (a custom pool may not take a built-in name). */
export const PRETHREAD_POOL = 'toolgauge-threads';

/**
 * The eval thread's heap. Young-generation semi-spaces of 8 MiB as the forked worker's `--max-semi-space-size=8`
 * (EVAL_WORKER_EXEC_ARGV: a run of 2 × 10^4 cases spent a third of the worker's CPU collecting with 2); V8 sizes
 * the young generation as three semi-spaces.
 */
export const EVAL_THREAD_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 24 };

/**
 * The forked worker's `--heap-growing-percent=50` (the old generation grows by half of what survives a full
 * collection, not up to fourfold). A V8 flag is the whole process's: set once the run chooses a thread.
 */
export const EVAL_THREAD_V8_FLAGS = ['--heap-growing-percent=50'];

let flagsSet = false;
function setEvalThreadFlags(): void {
  if (flagsSet) return;
  flagsSet = true;
  for (const f of EVAL_THREAD_V8_FLAGS) setFlagsFromString(f);
}

function startThread(entrypoint: string, execArgv: readonly string[], env: Record<string, string | undefined>) {
  setEvalThreadFlags();
  // The young generation the process was started with, which the thread's heap reads as it is set up.
  setThreadHeapV8Flags();
  return new Worker(entrypoint, {
    env: env as NodeJS.ProcessEnv,
    execArgv: [...execArgv],
    stdout: true,
    stderr: true,
    resourceLimits: EVAL_THREAD_LIMITS,
  });
}

/**
 * Start Vitest's thread worker program now, as Vitest would, and have it load `preload` (file URLs: modules the run
 * will import, prefork.ts's preloadModule) while it waits; the flag that does so is the one difference from Vitest's
 * own thread. The thread's flags are the project's node flags for a thread: none (V8's are the process's).
 */
export function prestartVitestThread(preload: readonly string[] = []): Prethread {
  const launch = expectedWorkerLaunch([], process.env, 'threads');
  const execArgv = preload.length ? [...launch.execArgv, '--import', preloadModule(preload)] : launch.execArgv;
  const worker = startThread(launch.entrypoint, execArgv, launch.env);
  const early: Prethread = { worker, ...launch, adopted: false, exited: false };
  worker.once('exit', () => {
    early.exited = true;
  });
  // Until a pool takes it, an error of the early thread is the pool's to meet (it then starts a fresh one).
  worker.on('error', () => {});
  return early;
}

/** End the early thread unless a pool took it (a run that ended before Vitest started one, or that asked otherwise). */
export async function discardPrethread(p: Prethread): Promise<void> {
  if (!p.adopted && !p.exited) await p.worker.terminate();
}

/** Vitest's `threads` worker (vitest 4.1's ThreadsPoolWorker), whose first start takes the early thread when it matches. */
class PrethreadedPoolWorker implements PoolWorker {
  readonly name = 'threads'; // what the worker is told it runs in: exactly a threads worker
  private readonly entrypoint: string;
  private thread: Worker | undefined;

  constructor(
    private readonly options: PoolOptions,
    private readonly early: Prethread,
  ) {
    this.entrypoint = `${options.distPath}/workers/threads.js`;
  }

  private get worker(): Worker {
    if (!this.thread) throw new Error('toolgauge: the test worker thread was stopped or never started');
    return this.thread;
  }

  on(event: string, callback: (arg: unknown) => void): void {
    this.worker.on(event, callback);
  }

  off(event: string, callback: (arg: unknown) => void): void {
    this.worker.off(event, callback);
  }

  send(message: Parameters<PoolWorker['send']>[0]): void {
    this.worker.postMessage(message);
  }

  async start(): Promise<void> {
    if (this.thread) return;
    const want = { entrypoint: this.entrypoint, execArgv: this.options.execArgv, env: this.options.env };
    if (!this.early.adopted && !this.early.exited && sameLaunch(this.early, want)) {
      this.early.adopted = true;
      this.thread = this.early.worker;
    } else {
      await discardPrethread(this.early);
      this.thread = startThread(this.entrypoint, this.options.execArgv, this.options.env);
    }
    const logger = this.options.project.vitest.logger;
    for (const [from, to] of [
      [this.thread.stdout, logger.outputStream],
      [this.thread.stderr, logger.errorStream],
    ] as const) {
      to.setMaxListeners(to.getMaxListeners() + 1);
      from.pipe(to);
    }
  }

  async stop(): Promise<void> {
    const thread = this.worker;
    await thread.terminate();
    const logger = this.options.project.vitest.logger;
    for (const [from, to] of [
      [thread.stdout, logger.outputStream],
      [thread.stderr, logger.errorStream],
    ] as const) {
      from.unpipe(to);
      to.setMaxListeners(to.getMaxListeners() - 1);
    }
    this.thread = undefined;
  }

  deserialize(data: unknown): unknown {
    return data;
  }
}

/** A Vitest pool of `threads` workers whose first worker is `early` when Vitest asks for exactly that thread. */
export function prethreadedPool(early: Prethread): PoolRunnerInitializer {
  return { name: PRETHREAD_POOL, createPoolWorker: (options) => new PrethreadedPoolWorker(options, early) };
}
