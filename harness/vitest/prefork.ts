// A test worker started before Vitest is. Vitest forks its worker only once it has loaded itself and Vite (about
// 0.3-0.4 s of the CLI's main process), and the worker then spends another 0.1-0.15 s starting Node and loading
// Vitest's runtime. The CLI forks that same worker program first, with the command line and environment Vitest
// would give it, so both load at once on two cores; the run's pool (`preforkedPool`) then hands Vitest this
// process instead of forking its own — only if what Vitest asks for is exactly what was started, else it forks a
// fresh one as Vitest's `forks` pool does and the early process is ended. See docs/cli.md.
import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isatty } from 'node:tty';
import { endWithHost } from '../core/end-with-host.ts';
import type { PoolOptions, PoolRunnerInitializer, PoolWorker } from 'vitest/node';

/** A worker process started early, and what it was started with. */
export interface Prefork {
  readonly child: ChildProcess;
  readonly entrypoint: string;
  /** The node flags Vitest would give the worker (a preload's `--import` comes on top). */
  readonly execArgv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether a pool took the process (else it is ended when the run's Vitest has closed). */
  adopted: boolean;
}

/** The pool's name in Vitest's configuration (a custom pool may not take a built-in name). */
export const PREFORK_POOL = 'toolgauge-forks';

/** Vitest's `dist/` folder, where its worker programs live. */
function vitestDist(): string {
  return join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'dist');
}

/**
 * What Vitest gives a `forks` (or `threads`) worker of a project with these execArgv and Vite's default conditions: its own flags
 * (the profiling flags of this process, then two of its own), the resolve conditions, then the project's; and this
 * process's environment with Vite's and Vitest's variables added. Rebuilt here from Vitest's pool (vitest 4.1); adoption
 * compares it with what Vitest actually asks for, so a difference costs time, never correctness.
 */
export function expectedWorkerLaunch(
  projectExecArgv: readonly string[],
  env: NodeJS.ProcessEnv,
  program: 'forks' | 'threads' = 'forks',
): { entrypoint: string; execArgv: string[]; env: Record<string, string | undefined> } {
  const dist = vitestDist();
  const profiling = process.execArgv.filter(
    (a) => a.startsWith('--cpu-prof') || a.startsWith('--heap-prof') || a.startsWith('--diagnostic-dir'),
  );
  return {
    entrypoint: join(dist, 'workers', `${program}.js`),
    execArgv: [
      ...profiling,
      '--experimental-import-meta-resolve',
      '--require',
      join(dist, '..', 'suppress-warnings.cjs'),
      '--conditions',
      'node',
      '--conditions',
      'development',
      ...projectExecArgv,
    ],
    env: {
      // Vite's import.meta.env, which Vitest puts on its own process.env where unset (no .env files in the run's root).
      PROD: '',
      DEV: '1',
      BASE_URL: '/',
      MODE: 'test',
      ...env,
      TEST: 'true',
      VITEST: 'true',
      NODE_ENV: env.NODE_ENV || 'test',
      VITEST_MODE: 'RUN',
      FORCE_TTY: isatty(1) ? 'true' : '',
    },
  };
}

/**
 * The `--import` module that loads `modules` (file URLs) in the early worker while it waits for Vitest: modules the
 * run's worker imports anyway, none of which imports Vitest (whose test API needs the worker's set-up first). One
 * that fails to load is left for the run to load and report. It also touches `Headers`, which Node loads on first
 * use (the model client's first request).
 */
export function preloadModule(modules: readonly string[]): string {
  const code = `for (const u of ${JSON.stringify(modules)}) { try { await import(u); } catch {} } void globalThis.Headers;`;
  return `data:text/javascript,${encodeURIComponent(code)}`;
}

/**
 * Fork Vitest's worker program now, as Vitest would, and have it load `preload` (file URLs: modules the run will
 * import, see preloadModule) while it waits; the flag that does so is the one difference from Vitest's own fork.
 */
export function preforkVitestWorker(projectExecArgv: readonly string[], preload: readonly string[] = []): Prefork {
  // Vitest builds its workers' environment from this process's own, so that is the one to start from.
  const launch = expectedWorkerLaunch(projectExecArgv, process.env);
  const execArgv = preload.length ? [...launch.execArgv, '--import', preloadModule(preload)] : launch.execArgv;
  const child = fork(launch.entrypoint, [], { env: launch.env, execArgv, stdio: 'pipe', serialization: 'advanced' });
  // Adopted or not, it ends with this process (Vitest has normally stopped an adopted one by then).
  endWithHost(child);
  return { child, ...launch, adopted: false };
}

/** End the early worker unless a pool took it (a run that ended before Vitest started one, or that asked otherwise). */
export function discardPrefork(p: Prefork): void {
  if (!p.adopted) p.child.kill('SIGKILL');
}

function sameArgs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameEnv(
  a: Readonly<Record<string, string | undefined>>,
  b: Readonly<Record<string, string | undefined>>,
): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => a[k] !== undefined || b[k] !== undefined));
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}

/** Whether a worker was started with exactly the program, node flags and environment Vitest asks for. */
export function sameLaunch(
  started: { entrypoint: string; execArgv: readonly string[]; env: Readonly<Record<string, string | undefined>> },
  want: { entrypoint: string; execArgv: readonly string[]; env: Partial<NodeJS.ProcessEnv> },
): boolean {
  return (
    started.entrypoint === want.entrypoint &&
    sameArgs(started.execArgv, want.execArgv) &&
    sameEnv(started.env, want.env)
  );
}

/** Why Vitest's request differs from what was started, or '' when the early worker is exactly it. */
export function preforkMismatch(
  p: Prefork,
  want: { entrypoint: string; execArgv: readonly string[]; env: Partial<NodeJS.ProcessEnv> },
): string {
  if (p.adopted) return 'already taken';
  if (p.child.exitCode !== null || p.child.signalCode !== null || !p.child.connected) return 'it has exited';
  if (p.entrypoint !== want.entrypoint) return `worker program ${want.entrypoint}`;
  if (!sameArgs(p.execArgv, want.execArgv)) return `node flags ${want.execArgv.join(' ')}`;
  if (!sameEnv(p.env, want.env)) return 'environment';
  return '';
}

/**
 * Vitest's `forks` worker (the same process handling as vitest 4.1's ForksPoolWorker), whose first start takes the
 * early process when it matches.
 */
class PreforkedPoolWorker implements PoolWorker {
  readonly name = 'forks'; // what the worker is told it runs in: exactly a forks worker
  readonly cacheFs = true;
  private readonly entrypoint: string;
  private proc: ChildProcess | undefined;

  constructor(
    private readonly options: PoolOptions,
    private readonly early: Prefork,
  ) {
    this.entrypoint = join(options.distPath, 'workers', 'forks.js');
  }

  private get child(): ChildProcess {
    if (!this.proc) throw new Error('toolgauge: the test worker was stopped or never started');
    return this.proc;
  }

  on(event: string, callback: (arg: unknown) => void): void {
    this.child.on(event, callback);
  }

  off(event: string, callback: (arg: unknown) => void): void {
    this.child.off(event, callback);
  }

  send(message: Parameters<PoolWorker['send']>[0]): void {
    this.child.send(message);
  }

  async start(): Promise<void> {
    if (this.proc) return;
    const want = { entrypoint: this.entrypoint, execArgv: this.options.execArgv, env: this.options.env };
    if (preforkMismatch(this.early, want) === '') {
      this.early.adopted = true;
      this.proc = this.early.child;
    } else {
      discardPrefork(this.early);
      this.proc = fork(this.entrypoint, [], {
        env: this.options.env,
        execArgv: this.options.execArgv,
        stdio: 'pipe',
        serialization: 'advanced',
      });
    }
    const logger = this.options.project.vitest.logger;
    for (const [from, to] of [
      [this.proc.stdout, logger.outputStream],
      [this.proc.stderr, logger.errorStream],
    ] as const) {
      if (!from) continue;
      to.setMaxListeners(to.getMaxListeners() + 1);
      from.pipe(to);
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    // As Vitest's own pool: a worker that ignores SIGTERM is killed.
    const hard = setTimeout(() => child.kill('SIGKILL'), 500);
    child.kill();
    await exited;
    clearTimeout(hard);
    const logger = this.options.project.vitest.logger;
    for (const [from, to] of [
      [child.stdout, logger.outputStream],
      [child.stderr, logger.errorStream],
    ] as const) {
      if (!from) continue;
      from.unpipe(to);
      to.setMaxListeners(to.getMaxListeners() - 1);
    }
    this.proc = undefined;
  }

  deserialize(data: unknown): unknown {
    return data;
  }
}

/** A Vitest pool of `forks` workers whose first worker is `early` when Vitest asks for exactly that process. */
export function preforkedPool(early: Prefork): PoolRunnerInitializer {
  return { name: PREFORK_POOL, createPoolWorker: (options) => new PreforkedPoolWorker(options, early) };
}
