// A pool of long-lived sandbox worker processes speaking the line protocol of protocol.ts.
// The pool owns the limits the workers cannot enforce on themselves: the per-call time limit (kill and
// replace) and the resident-memory bound (polled from /proc, kill and replace).
import { readFileSync } from 'node:fs';
import { execa, type ResultPromise } from 'execa';

const SPAWN_OPTIONS = {
  extendEnv: false,
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'pipe',
  buffer: false,
  reject: false,
  cleanup: true,
  encoding: 'utf8',
} as const;
import { ReadyMessage, ResponseMessage, type WorkerRequest } from './protocol.ts';

export interface WorkerLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
}

export interface PoolConfig {
  size: number;
  /** Command line of one worker; called for every start, after `prepare` resolved. */
  launch: () => WorkerLaunch;
  /** One-time preparation before the first start (e.g. building a pyodide memory snapshot). */
  prepare?: () => Promise<void>;
  startTimeoutMs: number;
  /** Kill a worker whose resident set exceeds this while it serves a call. */
  rssLimitBytes: number;
}

export type PoolResult =
  | { kind: 'response'; response: ResponseMessage; durationMs: number }
  | { kind: 'timeout' | 'memory' | 'crash'; message: string; durationMs: number };

export interface ReadyInfo extends ReadyMessage {
  /** Host-side time from spawn to the ready line. */
  spawnToReadyMs: number;
}

type Job = {
  request: Omit<WorkerRequest, 'id' | 'sources'>;
  sources: string[];
  timeoutMs: number;
  resolve: (r: PoolResult) => void;
};

const STDERR_TAIL = 4000;
const RSS_POLL_MS = 50;

class WorkerProcess {
  readonly proc: ResultPromise<typeof SPAWN_OPTIONS & { env: Record<string, string> }>;
  readonly ready: Promise<ReadyInfo>;
  readonly knownKeys = new Set<string>();
  peakRssBytes = 0;
  busy = false;
  dead = false;
  overMemory = false;
  private stderrTail = '';
  private buffered = '';
  private onLine: ((line: string) => void) | null = null;
  private onExit: (() => void) | null = null;

  constructor(launch: WorkerLaunch, startTimeoutMs: number) {
    const spawnedAt = performance.now();
    this.proc = execa(launch.file, launch.args, { ...SPAWN_OPTIONS, env: launch.env });
    this.proc.stdout.setEncoding('utf8');
    this.proc.stderr.setEncoding('utf8');
    this.proc.stdin.on('error', () => {}); // EPIPE after the worker died: exit handling reports it
    this.proc.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    this.proc.stdout.on('data', (chunk: string) => {
      this.buffered += chunk;
      let nl: number;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        this.onLine?.(line);
      }
    });
    void this.proc.then((result) => {
      // A command that could not be spawned at all has no stderr: keep execa's explanation.
      if (result.exitCode === undefined && result.signal === undefined && 'shortMessage' in result) {
        this.stderrTail = (this.stderrTail + String(result.shortMessage)).slice(-STDERR_TAIL);
      }
      this.dead = true;
      this.onExit?.();
    });
    this.ready = new Promise<ReadyInfo>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.kill();
        reject(new Error(`sandbox worker did not start within ${startTimeoutMs} ms${this.tail()}`));
      }, startTimeoutMs);
      this.onExit = () => {
        clearTimeout(timer);
        reject(new Error(`sandbox worker exited during start-up${this.tail()}`));
      };
      this.onLine = (line) => {
        clearTimeout(timer);
        this.onLine = null;
        this.onExit = null;
        let msg: ReadyMessage;
        try {
          msg = ReadyMessage.parse(JSON.parse(line));
        } catch {
          this.kill();
          reject(new Error(`sandbox worker sent a bad ready line: ${line.slice(0, 200)}${this.tail()}`));
          return;
        }
        if (!msg.ready) {
          this.kill();
          reject(new Error(`sandbox worker failed to start: ${msg.error ?? 'unknown error'}${this.tail()}`));
          return;
        }
        resolve({ ...msg, spawnToReadyMs: performance.now() - spawnedAt });
      };
    });
    this.ready.catch(() => {});
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  tail(): string {
    const t = this.stderrTail.trim();
    return t ? `\n--- worker stderr ---\n${t}` : '';
  }

  /** Send one request; the callbacks fire once: a response line, or the process ending. */
  exchange(request: WorkerRequest, onResponse: (line: string) => void, onExit: () => void): void {
    this.onLine = onResponse;
    this.onExit = onExit;
    this.proc.stdin.write(JSON.stringify(request) + '\n');
  }

  /** Keys the worker holds; bounded below the worker's own cache (512), which answers need_sources anyway. */
  rememberKey(key: string): void {
    this.knownKeys.delete(key);
    this.knownKeys.add(key);
    if (this.knownKeys.size > 256) this.knownKeys.delete(this.knownKeys.values().next().value!);
  }

  release(): void {
    this.onLine = null;
    this.onExit = null;
  }

  /** Resident set size from /proc (Linux); 0 where unavailable. */
  rssBytes(): number {
    if (this.pid === undefined) return 0;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      const rss = m ? Number(m[1]) * 1024 : 0;
      if (rss > this.peakRssBytes) this.peakRssBytes = rss;
      return rss;
    } catch {
      return 0;
    }
  }

  kill(): void {
    if (this.dead) return;
    this.proc.kill('SIGKILL');
  }
}

export class WorkerPool {
  private readonly slots: (WorkerProcess | null)[];
  private readonly queue: Job[] = [];
  private prepared: Promise<void> | null = null;
  private nextId = 1;
  private closed = false;
  private watchdog: NodeJS.Timeout | null = null;
  private lastReady: ReadyInfo | null = null;
  starts = 0;
  restarts = 0;
  peakRssBytes = 0;

  constructor(private readonly config: PoolConfig) {
    this.slots = Array.from({ length: Math.max(1, config.size) }, () => null);
  }

  get liveWorkers(): number {
    return this.slots.filter((w) => w && !w.dead).length;
  }

  get lastReadyInfo(): ReadyInfo | null {
    return this.lastReady;
  }

  /** Start every slot's worker now (otherwise they start on first use). */
  async warm(): Promise<ReadyInfo[]> {
    this.ensureOpen();
    await this.prepare();
    const workers = this.slots.map((w, i) => (w && !w.dead ? w : this.start(i, false)));
    return Promise.all(workers.map((w) => w.ready));
  }

  run(request: Job['request'], sources: string[], timeoutMs: number): Promise<PoolResult> {
    this.ensureOpen();
    return new Promise<PoolResult>((resolve) => {
      this.queue.push({ request, sources, timeoutMs, resolve });
      void this.prepare().then(
        () => this.pump(),
        (err: unknown) => this.failQueue(`sandbox preparation failed: ${errorText(err)}`),
      );
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    this.failQueue('sandbox closed');
    const procs = this.slots.filter((w): w is WorkerProcess => w !== null);
    for (const w of procs) w.kill();
    this.slots.fill(null);
    await Promise.all(procs.map((w) => w.proc.catch(() => undefined)));
  }

  private ensureOpen(): void {
    if (this.closed) throw new Error('sandbox is closed');
  }

  private prepare(): Promise<void> {
    this.prepared ??= this.config.prepare ? this.config.prepare() : Promise.resolve();
    return this.prepared;
  }

  private failQueue(message: string): void {
    for (const job of this.queue.splice(0)) job.resolve({ kind: 'crash', message, durationMs: 0 });
  }

  private start(slot: number, replacement: boolean): WorkerProcess {
    const w = new WorkerProcess(this.config.launch(), this.config.startTimeoutMs);
    this.starts++;
    if (replacement) this.restarts++;
    this.slots[slot] = w;
    w.ready.then(
      (info) => {
        this.lastReady = info;
      },
      () => {},
    );
    void w.proc.then(() => {
      // A worker that dies while idle leaves its slot empty; the next call starts a new one.
      if (this.slots[slot] === w && !w.busy) this.slots[slot] = null;
    });
    return w;
  }

  private replace(slot: number, w: WorkerProcess): void {
    w.kill();
    if (this.slots[slot] !== w) return;
    if (this.closed) {
      this.slots[slot] = null;
      return;
    }
    this.start(slot, true);
  }

  /** Pick a slot for the next job: an idle worker that already holds the row, any idle worker, an empty slot. */
  private pickSlot(key: string): number {
    let idle = -1;
    let empty = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const w = this.slots[i];
      if (!w || w.dead) {
        if (empty < 0 && !w?.busy) empty = i;
        continue;
      }
      if (w.busy) continue;
      if (w.knownKeys.has(key)) return i;
      if (idle < 0) idle = i;
    }
    return idle >= 0 ? idle : empty;
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const slot = this.pickSlot(this.queue[0]!.request.key);
      if (slot < 0) return;
      const job = this.queue.shift()!;
      let w = this.slots[slot];
      if (!w || w.dead) w = this.start(slot, false);
      w.busy = true;
      void this.serve(slot, w, job).then((result) => {
        w.busy = false;
        job.resolve(result);
        if (w.dead && this.slots[slot] === w) this.slots[slot] = null;
        this.pump();
      });
    }
  }

  private async serve(slot: number, w: WorkerProcess, job: Job): Promise<PoolResult> {
    try {
      await w.ready;
    } catch (err) {
      if (this.slots[slot] === w) this.slots[slot] = null;
      return { kind: 'crash', message: errorText(err), durationMs: 0 };
    }
    if (w.dead) return { kind: 'crash', message: `sandbox worker exited before the call${w.tail()}`, durationMs: 0 };
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const id = this.nextId++;
    this.ensureWatchdog();
    return new Promise<PoolResult>((resolve) => {
      let settled = false;
      const finish = (result: PoolResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        w.release();
        resolve(result);
      };
      const timer = setTimeout(() => {
        this.replace(slot, w);
        finish({ kind: 'timeout', message: `tool call exceeded ${job.timeoutMs} ms; worker killed`, durationMs: elapsed() });
      }, job.timeoutMs);
      const onExit = () => {
        const memory = w.overMemory;
        this.replace(slot, w);
        finish(
          memory
            ? {
                kind: 'memory',
                message: `worker exceeded the memory bound (${Math.round(this.config.rssLimitBytes / 2 ** 20)} MiB resident); killed`,
                durationMs: elapsed(),
              }
            : { kind: 'crash', message: `sandbox worker died during the call${w.tail()}`, durationMs: elapsed() },
        );
      };
      const send = (withSources: boolean) => {
        const request: WorkerRequest = { ...job.request, id, ...(withSources ? { sources: job.sources } : {}) };
        w.exchange(request, onLine, onExit);
      };
      const onLine = (line: string) => {
        let response: ResponseMessage;
        try {
          response = ResponseMessage.parse(JSON.parse(line));
        } catch {
          this.replace(slot, w);
          finish({ kind: 'crash', message: `sandbox worker sent a bad response: ${line.slice(0, 200)}`, durationMs: elapsed() });
          return;
        }
        if (response.id !== id && response.kind !== 'crash') {
          this.replace(slot, w);
          finish({ kind: 'crash', message: `sandbox worker answered request ${response.id}, expected ${id}`, durationMs: elapsed() });
          return;
        }
        if (response.kind === 'need_sources') {
          w.knownKeys.delete(job.request.key);
          send(true);
          return;
        }
        w.rememberKey(job.request.key);
        if (response.kind === 'crash' || response.recycle) this.replace(slot, w);
        finish({ kind: 'response', response, durationMs: elapsed() });
      };
      send(!w.knownKeys.has(job.request.key));
    });
  }

  private ensureWatchdog(): void {
    if (this.watchdog) return;
    this.watchdog = setInterval(() => {
      let busy = 0;
      for (const w of this.slots) {
        if (!w || w.dead || !w.busy) continue;
        busy++;
        const rss = w.rssBytes();
        if (rss > this.peakRssBytes) this.peakRssBytes = rss;
        if (rss > this.config.rssLimitBytes) {
          w.overMemory = true;
          w.kill();
        }
      }
      if (busy === 0 && this.watchdog) {
        clearInterval(this.watchdog);
        this.watchdog = null;
      }
    }, RSS_POLL_MS);
    this.watchdog.unref();
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
