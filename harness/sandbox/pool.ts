// A pool of long-lived sandbox worker processes speaking the line protocol of protocol.ts.
// The pool owns the limits the workers cannot enforce on themselves: the per-call time limit (kill and
// replace), the resident-memory bound (polled from /proc over the worker's process tree, kill and replace)
// and the length of a response line (the host never holds more than that of one worker's output).
import { readFileSync } from 'node:fs';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { MAX_REQUEST_BYTES, ReadyMessage, ResponseMessage, rowKey, type WorkerRequest } from './protocol.ts';
import { spawnWorker, type WorkerExit } from './spawn-worker.ts';

export interface WorkerLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Host descriptors the worker inherits as 3, 4, … (the pool does not close them). */
  fds?: number[];
  /** The launched process forks once (into a PID namespace): the worker is its only child. */
  forked?: boolean;
}

export interface PoolConfig {
  size: number;
  /** Command line of one worker; called for every start, after `prepare` resolved. */
  launch: () => WorkerLaunch;
  /** One-time preparation before the first start (e.g. building a pyodide memory snapshot). */
  prepare?: () => Promise<void>;
  startTimeoutMs: number;
  /** Kill a worker whose resident set (with its children) exceeds this while it serves a call. */
  rssLimitBytes: number;
  /** Kill a worker that sends a response line longer than this (bytes, UTF-16 units of the decoded text). */
  maxLineBytes: number;
  /**
   * How many rows' state a worker keeps (pyodide: the last row's heap, 1; CPython: one child per row): a call goes
   * to an idle worker that served its row within its last `rowMemory` rows before any other. Default 1.
   */
  rowMemory?: number;
}

export type PoolResult =
  | { kind: 'response'; response: ResponseMessage; durationMs: number }
  | { kind: 'timeout' | 'memory' | 'crash'; message: string; durationMs: number };

export interface ReadyInfo extends ReadyMessage {
  /** Host-side time from spawn to the ready line. */
  spawnToReadyMs: number;
}

type Job = {
  request: Omit<WorkerRequest, 'id'>;
  /** rowKey of the request, for worker affinity. */
  row: string;
  timeoutMs: number;
  resolve: (r: PoolResult) => void;
};

const STDERR_TAIL = 4000;
const RSS_POLL_MS = 50;

class WorkerProcess {
  readonly proc: ChildProcessWithoutNullStreams;
  /** Settles when the process has ended (never rejects). */
  readonly exited: Promise<WorkerExit>;
  readonly ready: Promise<ReadyInfo>;
  peakRssBytes = 0;
  /** Longest incomplete line held so far (for tests of the bound). */
  peakLineBytes = 0;
  busy = false;
  dead = false;
  /** The ready line came: until then the worker holds nothing a clean exit would keep. */
  isReady = false;
  /** Rows of the last calls served, newest last: the worker may still hold their state (`PoolConfig.rowMemory`). */
  recentRows: string[] = [];
  overMemory = false;
  private startTimer: NodeJS.Timeout | undefined;
  overLength = false;
  private readonly forked: boolean;
  private stderrTail = '';
  private pieces: string[] = [];
  private pending = 0;
  private onLine: ((line: string) => void) | null = null;
  private onExit: (() => void) | null = null;

  constructor(
    launch: WorkerLaunch,
    startTimeoutMs: number,
    private readonly maxLineBytes: number,
  ) {
    const spawnedAt = performance.now();
    this.forked = launch.forked ?? false;
    ({ child: this.proc, exited: this.exited } = spawnWorker(launch.file, launch.args, launch.env, launch.fds));
    this.proc.stdout.setEncoding('utf8');
    this.proc.stderr.setEncoding('utf8');
    this.proc.stdin.on('error', () => {}); // EPIPE after the worker died: exit handling reports it
    this.proc.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    this.proc.stdout.on('data', (chunk: string) => this.take(chunk));
    void this.exited.then((result) => {
      // A command that could not be spawned at all has no stderr: keep the reason it could not.
      if (result.spawnError) this.stderrTail = (this.stderrTail + result.spawnError).slice(-STDERR_TAIL);
      this.dead = true;
      // Also when the pool ended the worker's input before it was ready (endInput clears onExit): the start-up
      // timer would otherwise hold the host process for startTimeoutMs.
      clearTimeout(this.startTimer);
      failStart?.(
        new Error(
          `sandbox worker exited during start-up${this.overLength ? ' (ready line too long)' : ''}${this.tail()}`,
        ),
      );
      this.onExit?.();
    });
    let failStart: ((err: Error) => void) | null = null;
    this.ready = new Promise<ReadyInfo>((resolve, reject) => {
      failStart = (err) => {
        failStart = null;
        reject(err);
      };
      const timer = setTimeout(() => {
        this.kill();
        failStart?.(new Error(`sandbox worker did not start within ${startTimeoutMs} ms${this.tail()}`));
      }, startTimeoutMs);
      this.startTimer = timer;
      this.onExit = () => {
        clearTimeout(timer);
      };
      this.onLine = (line) => {
        clearTimeout(timer);
        this.onLine = null;
        this.onExit = null;
        const fail = (message: string) => {
          this.kill();
          failStart?.(new Error(`${message}${this.tail()}`));
        };
        let msg: ReadyMessage;
        try {
          msg = ReadyMessage.parse(JSON.parse(line));
        } catch {
          return fail(`sandbox worker sent a bad ready line: ${line.slice(0, 200)}`);
        }
        if (!msg.ready) return fail(`sandbox worker failed to start: ${msg.error ?? 'unknown error'}`);
        failStart = null;
        this.isReady = true;
        resolve({ ...msg, spawnToReadyMs: performance.now() - spawnedAt });
      };
    });
    this.ready.catch(() => {});
  }

  /** Split output into lines, holding at most `maxLineBytes` of an unfinished one. */
  private take(chunk: string): void {
    if (this.overLength) return;
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf('\n', start)) >= 0) {
      const part = chunk.slice(start, nl);
      const line = this.pieces.length ? this.pieces.join('') + part : part;
      this.pieces = [];
      this.pending = 0;
      start = nl + 1;
      if (line.length > this.maxLineBytes) return this.tooLong(line.length);
      this.onLine?.(line);
    }
    if (start < chunk.length) {
      const rest = start === 0 ? chunk : chunk.slice(start);
      this.pending += rest.length;
      if (this.pending > this.peakLineBytes) this.peakLineBytes = this.pending;
      if (this.pending > this.maxLineBytes) return this.tooLong(this.pending);
      this.pieces.push(rest);
    }
  }

  private tooLong(length: number): void {
    this.overLength = true;
    this.pieces = [];
    this.pending = 0;
    this.stderrTail += `\n(worker response passed ${length} bytes, over the limit of ${this.maxLineBytes}; worker killed)`;
    this.kill();
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** Host pid of the interpreter process itself (the launched process's child when the launcher forks). */
  workerPid(): number | undefined {
    const pid = this.pid;
    if (pid === undefined || !this.forked) return pid;
    return childrenOf(pid)[0];
  }

  tail(): string {
    const t = this.stderrTail.trim();
    return t ? `\n--- worker stderr ---\n${t}` : '';
  }

  /** Send one request; the callbacks fire once: a response line, or the process ending. */
  exchange(line: string, onResponse: (line: string) => void, onExit: () => void): void {
    this.onLine = onResponse;
    this.onExit = onExit;
    this.proc.stdin.write(line + '\n');
  }

  release(): void {
    this.onLine = null;
    this.onExit = null;
  }

  /** Close the worker's input: an idle worker then exits, and its launcher reaps it. */
  endInput(): void {
    this.onLine = null;
    this.onExit = null;
    this.proc.stdin.end();
  }

  /** Resident set of the worker and all its descendants, from /proc (Linux); 0 where unavailable. */
  rssBytes(): number {
    if (this.pid === undefined) return 0;
    const rss = treeRssBytes(this.pid);
    if (rss > this.peakRssBytes) this.peakRssBytes = rss;
    return rss;
  }

  kill(): void {
    if (this.dead) return;
    this.proc.kill('SIGKILL');
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function treeRssBytes(root: number): number {
  let total = 0;
  const stack = [root];
  for (let guard = 0; stack.length > 0 && guard < 64; guard++) {
    const pid = stack.pop()!;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      total += m ? Number(m[1]) * 1024 : 0;
    } catch {
      continue;
    }
    stack.push(...childrenOf(pid));
  }
  return total;
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
  /** Workers replaced because they could not start the next call from a fresh state. */
  recycled = 0;
  private retiredPeakLine = 0;

  constructor(private readonly config: PoolConfig) {
    this.slots = Array.from({ length: Math.max(1, config.size) }, () => null);
  }

  get liveWorkers(): number {
    return this.slots.filter((w) => w && !w.dead).length;
  }

  get lastReadyInfo(): ReadyInfo | null {
    return this.lastReady;
  }

  /** Host pids of the live workers' interpreter processes, by slot. */
  workerPids(): number[] {
    return this.slots.flatMap((w) => (w && !w.dead ? [w.workerPid()].filter((p): p is number => p !== undefined) : []));
  }

  /** Longest unfinished response line any worker of this pool made the host hold. */
  get peakLineBytes(): number {
    return Math.max(this.retiredPeakLine, ...this.slots.map((w) => w?.peakLineBytes ?? 0));
  }

  /** Start every slot's worker now (otherwise they start on first use). */
  async warm(): Promise<ReadyInfo[]> {
    this.ensureOpen();
    await this.prepare();
    // Closed while preparing: a worker started now would belong to no one (and its start timer hold the process).
    this.ensureOpen();
    const workers = this.slots.map((w, i) => (w && !w.dead ? w : this.start(i, false)));
    return Promise.all(workers.map((w) => w.ready));
  }

  run(request: Job['request'], timeoutMs: number): Promise<PoolResult> {
    this.ensureOpen();
    return new Promise<PoolResult>((resolve) => {
      this.queue.push({ request, row: rowKey(request.row, request.sources), timeoutMs, resolve });
      void this.prepare().then(
        () => this.pump(),
        (err: unknown) => this.failQueue(`sandbox preparation failed: ${errorText(err)}`),
      );
    });
  }

  /**
   * Fail queued calls, end idle workers' input (they exit on their own; killed after a second), kill busy ones and
   * ones still starting (a starting worker reads its input only once it is ready: a run refused before its first call
   * would otherwise wait for the boot).
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    this.failQueue('sandbox closed');
    const procs = this.slots.filter((w): w is WorkerProcess => w !== null);
    this.slots.fill(null);
    for (const w of procs) {
      if (w.busy || !w.isReady) w.kill();
      else w.endInput();
    }
    const stragglers = setTimeout(() => procs.forEach((w) => w.kill()), 1000);
    await Promise.all(procs.map((w) => w.exited));
    clearTimeout(stragglers);
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
    const w = new WorkerProcess(this.config.launch(), this.config.startTimeoutMs, this.config.maxLineBytes);
    this.starts++;
    if (replacement) this.restarts++;
    this.slots[slot] = w;
    w.ready.then(
      (info) => {
        this.lastReady = info;
      },
      () => {},
    );
    void w.exited.then(() => {
      // A worker that dies while idle leaves its slot empty; the next call starts a new one.
      if (this.slots[slot] === w && !w.busy) this.slots[slot] = null;
    });
    return w;
  }

  private replace(slot: number, w: WorkerProcess): void {
    w.kill();
    this.retiredPeakLine = Math.max(this.retiredPeakLine, w.peakLineBytes);
    if (this.slots[slot] !== w) return;
    if (this.closed) {
      this.slots[slot] = null;
      return;
    }
    this.start(slot, true);
  }

  /** Pick a slot for the next job: an idle worker that still holds the row, any idle worker, an empty slot. */
  private pickSlot(row: string): number {
    let idle = -1;
    let empty = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const w = this.slots[i];
      if (!w || w.dead) {
        if (empty < 0 && !w?.busy) empty = i;
        continue;
      }
      if (w.busy) continue;
      if (w.recentRows.includes(row)) return i;
      if (idle < 0) idle = i;
    }
    return idle >= 0 ? idle : empty;
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const slot = this.pickSlot(this.queue[0]!.row);
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
    const id = this.nextId++;
    const line = JSON.stringify({ ...job.request, id });
    if (line.length > MAX_REQUEST_BYTES) {
      return {
        kind: 'crash',
        message: `request of ${line.length} bytes (sources and arguments) exceeds the sandbox limit of ${MAX_REQUEST_BYTES}`,
        durationMs: 0,
      };
    }
    const started = performance.now();
    const elapsed = () => performance.now() - started;
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
        finish({
          kind: 'timeout',
          message: `tool call exceeded ${job.timeoutMs} ms; worker killed`,
          durationMs: elapsed(),
        });
      }, job.timeoutMs);
      const onExit = () => {
        this.replace(slot, w);
        if (w.overMemory) {
          const mib = Math.round(this.config.rssLimitBytes / 2 ** 20);
          finish({
            kind: 'memory',
            message: `worker exceeded the memory bound (${mib} MiB resident); killed`,
            durationMs: elapsed(),
          });
        } else if (w.overLength) {
          const message = `tool response of more than ${this.config.maxLineBytes} bytes exceeds the sandbox limit; worker killed`;
          finish({ kind: 'crash', message, durationMs: elapsed() });
        } else {
          finish({ kind: 'crash', message: `sandbox worker died during the call${w.tail()}`, durationMs: elapsed() });
        }
      };
      const onLine = (line: string) => {
        let response: ResponseMessage;
        try {
          response = ResponseMessage.parse(JSON.parse(line));
        } catch {
          this.replace(slot, w);
          finish({
            kind: 'crash',
            message: `sandbox worker sent a bad response: ${line.slice(0, 200)}`,
            durationMs: elapsed(),
          });
          return;
        }
        if (response.id !== id && response.kind !== 'crash') {
          this.replace(slot, w);
          finish({
            kind: 'crash',
            message: `sandbox worker answered request ${response.id}, expected ${id}`,
            durationMs: elapsed(),
          });
          return;
        }
        if (response.recycle) this.recycled++;
        remember(w.recentRows, job.row, this.config.rowMemory ?? 1);
        if (response.kind === 'crash' || response.recycle) this.replace(slot, w);
        finish({ kind: 'response', response, durationMs: elapsed() });
      };
      w.exchange(line, onLine, onExit);
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

/** Move `row` to the end of `rows` (most recent), keeping at most `max` of them. */
function remember(rows: string[], row: string, max: number): void {
  const at = rows.indexOf(row);
  if (at >= 0) rows.splice(at, 1);
  rows.push(row);
  if (rows.length > max) rows.splice(0, rows.length - max);
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
