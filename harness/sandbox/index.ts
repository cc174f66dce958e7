// Running ToolHop's dataset Python tools: a pool of isolated worker processes with the reference runner's
// semantics (runtime/toolhop_runtime.py). Backends: 'pyodide' (default; Node permission model around
// pyodide) and 'python' (a CPython subprocess per slot). See README.md for the isolation layers.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { timerMs } from '../core/config.ts';
import { confinement } from './confine.ts';
import { WorkerPool, type PoolResult, type ReadyInfo } from './pool.ts';
import { maxResponseBytes } from './protocol.ts';
import { PyodideLauncher } from './pyodide-backend.ts';
import { pythonLaunch, resolvePythonPath, ROW_CHILDREN } from './python-backend.ts';
import { autoSandbox } from './auto.ts';
import { probeCPython } from './cpython-probe.ts';

export type SandboxBackend = 'pyodide' | 'python' | 'auto';

/**
 * Where a row's tools run. `auto` decides per row from its sources (route.ts): pyodide, or the CPython backend for
 * a row that imports what pyodide cannot run; `backend: null` when such a row has no CPython to run in (an
 * environment error, never the model's). `needs`: the imports that sent the row to CPython.
 */
export type RowRoute =
  | { backend: 'pyodide' | 'python'; needs: string[] }
  | { backend: null; needs: string[]; reason: string };

export interface SandboxOptions {
  backend: SandboxBackend;
  /** Worker processes (default 2). */
  poolSize?: number;
  /** Per-call time limit (default 10 000 ms): the worker is killed and replaced. */
  callTimeoutMs?: number;
  /** Memory bound per worker (default 1024 MiB): wasm heap maximum (pyodide) or RLIMIT_AS (python). */
  memoryLimitMb?: number;
  /** CPython interpreter for backend 'python' (default /usr/bin/python3; a run passes its --python / TOOLGAUGE_PYTHON). */
  pythonPath?: string;
  /** Content longer than this many characters is cut in the worker (default 1 000 000; see truncatedFrom). */
  maxContentChars?: number;
  /** pyodide: start workers from a cached memory snapshot (default true). */
  snapshot?: boolean;
  /** OS confinement of the workers (default true; false only for debugging — a run's TOOLGAUGE_SANDBOX_CONFINE=0). */
  confine?: boolean;
  /** Worker start-up limit (default 60 000 ms). */
  startTimeoutMs?: number;
}

const OptionsSchema = z.object({
  backend: z.enum(['pyodide', 'python', 'auto']),
  poolSize: z.number().int().min(1).max(64).optional(),
  callTimeoutMs: timerMs.optional(),
  memoryLimitMb: z.number().int().min(128).max(4096).optional(),
  pythonPath: z.string().optional(), // '' means unset
  maxContentChars: z.number().int().positive().optional(),
  snapshot: z.boolean().optional(),
  confine: z.boolean().optional(),
  startTimeoutMs: timerMs.optional(),
});

export interface ToolRef {
  rowId: string | number;
  /** Position of the tool's schema in the row's `tools`. */
  index: number;
  name: string;
  /** All of the row's function sources, in order. */
  sources: string[];
}

export type ToolOutcome =
  | {
      kind: 'ok';
      content: string;
      durationMs: number /** Python length before the worker cut it. */;
      truncatedFrom?: number;
    }
  | {
      kind: 'exception';
      excType: string;
      message: string;
      durationMs: number /** Python length of the message before the cut. */;
      truncatedFrom?: number;
    }
  | {
      kind: 'timeout' | 'memory' | 'crash' | 'load_error' | 'not_found' | 'unavailable';
      message: string;
      durationMs: number;
    };

export interface SandboxInfo {
  backend: SandboxBackend;
  /** OS confinement layers in use ('netns', 'pidns', 'uid' or 'userns'), empty where the host allows none. */
  confinement: string[];
  /** Host pids of the live workers' interpreter processes. */
  workerPids: number[];
  /** pyodide: how the memory snapshot was obtained, or why there is none. */
  snapshot?: string;
  /** The most recent worker's ready report (start time, snapshot use, ...). */
  lastReady: ReadyInfo | null;
  /** Highest worker resident set seen while serving a call, in bytes. */
  peakRssBytes: number;
}

export interface Sandbox {
  readonly backend: SandboxBackend;
  call(tool: ToolRef, argumentsJson: string, opts?: { timeoutMs?: number }): Promise<ToolOutcome>;
  checkLoad(tool: ToolRef): Promise<{ ok: true } | { ok: false; message: string }>;
  /** Where the row of `tool` runs (absent: always this sandbox's backend; see `routeOf`). */
  route?(tool: Pick<ToolRef, 'rowId' | 'sources'>): Promise<RowRoute>;
  /** Start all workers now instead of on first use. */
  warm(): Promise<void>;
  /** `recycled`: workers replaced because they could not start the next call from a fresh state (pyodide). */
  stats(): { workers: number; starts: number; restarts: number; calls: number; recycled: number };
  info(): SandboxInfo;
  close(): Promise<void>;
}

/** The agent layer's gate: dataset code runs only when TOOLHOP_ALLOW_DATASET_EXEC=1. */
export function assertDatasetExecAllowed(env: NodeJS.ProcessEnv | Record<string, string | undefined>): void {
  if (env.TOOLHOP_ALLOW_DATASET_EXEC !== '1') {
    throw new Error(
      'ToolHop tools are Python code shipped with the dataset; running them requires TOOLHOP_ALLOW_DATASET_EXEC=1 ' +
        '(they run in an isolated sandbox, but only set it when you intend to run the benchmark)',
    );
  }
}

/**
 * pyodide workers per sandbox unless `poolSize` says otherwise: one per core but one (at most 4). Each holds about
 * 190 MiB; on 2 cores a second worker only competed for the CPU — measured on 182 rows at zero and at 200 ms model
 * latency, one worker was as fast, with less CPU and 120–210 MiB less memory.
 */
export function defaultPyodidePool(cores = availableParallelism()): number {
  return Math.min(4, Math.max(1, cores - 1));
}

export function createSandbox(options: SandboxOptions): Sandbox {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid sandbox option ${issue?.path.join('.') || ''}: ${issue?.message ?? parsed.error.message}`);
  }
  const opts: SandboxOptions = parsed.data;
  if (opts.backend === 'auto') {
    // Two pools with the same options: the CPython one starts only for the first row that needs it.
    return autoSandbox({
      pyodide: () => createFixed({ ...opts, backend: 'pyodide' }),
      python: () => createFixed({ ...opts, backend: 'python' }),
      probe: (modules) => probeCPython(resolvePythonPath(opts.pythonPath, {}), modules),
      callTimeoutMs: opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    });
  }
  return createFixed({ ...opts, backend: opts.backend });
}

/** Per-call time limit when none is given. */
export const DEFAULT_CALL_TIMEOUT_MS = 10_000;

function createFixed(opts: SandboxOptions & { backend: 'pyodide' | 'python' }): Sandbox {
  const callTimeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const memoryLimitMb = opts.memoryLimitMb ?? 1024;
  const maxChars = opts.maxContentChars ?? 1_000_000;
  // Workers refuse to send longer lines; the pool kills a worker that tries anyway (a row can replace the
  // worker's own cut), so the host never holds more than this of one answer.
  const maxResponse = maxResponseBytes(maxChars);
  const maxLineBytes = maxResponse + 4096;
  let pool: WorkerPool;
  let pyodide: PyodideLauncher | null = null;
  if (opts.backend === 'pyodide') {
    const launcher = new PyodideLauncher({
      memoryLimitMb,
      snapshot: opts.snapshot ?? true,
      confine: opts.confine !== false,
      maxResponseBytes: maxResponse,
    });
    pyodide = launcher;
    pool = new WorkerPool({
      size: opts.poolSize ?? defaultPyodidePool(),
      launch: () => launcher.launch(),
      prepare: () => launcher.prepare(),
      startTimeoutMs: opts.startTimeoutMs ?? 60_000,
      // The wasm heap is bounded in the worker; this backstop allows for V8 and pyodide's own memory.
      rssLimitBytes: (memoryLimitMb + 512) * 2 ** 20,
      maxLineBytes,
    });
  } else {
    // The library reads no environment: a run passes its TOOLGAUGE_PYTHON as opts.pythonPath.
    const pythonPath = resolvePythonPath(opts.pythonPath, {});
    // Kept children count in the worker's resident set (each maps the server's pages): fewer under a tight limit.
    const rowChildren = Math.min(ROW_CHILDREN, Math.floor(memoryLimitMb / 64));
    pool = new WorkerPool({
      size: opts.poolSize ?? 2,
      launch: () => pythonLaunch(pythonPath, memoryLimitMb, maxResponse, opts.confine !== false, rowChildren),
      startTimeoutMs: opts.startTimeoutMs ?? 60_000,
      // RLIMIT_AS binds first (per process); this backs it up for the server and its call's child together.
      rssLimitBytes: (2 * memoryLimitMb + 128) * 2 ** 20,
      maxLineBytes,
      rowMemory: Math.max(1, rowChildren),
    });
  }
  let calls = 0;

  const request = (tool: ToolRef, op: 'call' | 'check', args: string | undefined, timeoutMs: number) =>
    pool.run(
      {
        op,
        row: tool.rowId,
        index: tool.index,
        name: tool.name,
        sources: tool.sources,
        ...(args !== undefined ? { args, maxChars } : {}),
      },
      timeoutMs,
    );

  return {
    backend: opts.backend,
    async call(tool, argumentsJson, callOpts) {
      calls++;
      return toOutcome(await request(tool, 'call', argumentsJson, callOpts?.timeoutMs ?? callTimeoutMs));
    },
    async route() {
      return { backend: opts.backend, needs: [] };
    },
    async checkLoad(tool) {
      const outcome = toOutcome(await request(tool, 'check', undefined, callTimeoutMs));
      if (outcome.kind === 'ok') return { ok: true };
      const detail = outcome.kind === 'exception' ? `${outcome.excType}: ${outcome.message}` : outcome.message;
      return { ok: false, message: `${outcome.kind}: ${detail}` };
    },
    async warm() {
      await pool.warm();
    },
    stats() {
      return {
        workers: pool.liveWorkers,
        starts: pool.starts,
        restarts: pool.restarts,
        calls,
        recycled: pool.recycled,
      };
    },
    info() {
      return {
        backend: opts.backend,
        confinement: confinement({ enabled: opts.confine !== false }).layers,
        workerPids: pool.workerPids(),
        ...(pyodide ? { snapshot: pyodide.snapshotNote } : {}),
        lastReady: pool.lastReadyInfo,
        peakRssBytes: pool.peakRssBytes,
      };
    },
    async close() {
      await pool.close();
      pyodide?.dispose();
    },
  };
}

function toOutcome(r: PoolResult): ToolOutcome {
  if (r.kind !== 'response') return r;
  const { response: res, durationMs } = r;
  switch (res.kind) {
    case 'ok':
      return {
        kind: 'ok',
        content: res.content ?? '',
        durationMs,
        ...(res.truncatedFrom !== undefined ? { truncatedFrom: res.truncatedFrom } : {}),
      };
    case 'exception':
      return {
        kind: 'exception',
        excType: res.excType ?? 'Exception',
        message: res.message ?? '',
        durationMs,
        ...(res.truncatedFrom !== undefined ? { truncatedFrom: res.truncatedFrom } : {}),
      };
    case 'load_error':
    case 'not_found':
    case 'crash':
      return { kind: res.kind, message: res.message ?? '', durationMs };
    default:
      return { kind: 'crash', message: `unexpected worker response ${JSON.stringify(res)}`, durationMs };
  }
}
