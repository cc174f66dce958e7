// EngineHost: node-llama-cpp in a child process. A GGML assert on a bad file aborts the process it runs in, so the
// engine never runs in ours: a crash of the child rejects every pending request with a one-line `crash` error,
// and the next request starts a new child. Requests carry ids; the child runs up to `sequences` at once.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { endWithHost } from '../core/end-with-host.ts';
import { DEFAULT_CONTEXT_SIZE } from './defaults.ts';
import { ggufFacts, type GgufFacts } from './gguf/reader.ts';
import { checkRequest, CompleteRequestSchema, DistributionsRequestSchema, tokenId } from './request-check.ts';
import { requireNodeLlamaCpp, type EngineModule } from './resolve.ts';
import {
  ENGINE_NAME,
  EngineError,
  type CompleteChunk,
  type CompleteOptions,
  type CompleteRequest,
  type CompleteResult,
  type DistributionsRequest,
  type DistributionsResult,
  type Engine,
  type EngineErrorKind,
  type EngineInfo,
  type EngineOptions,
} from './types.ts';

const CHILD = fileURLToPath(new URL('./child.mjs', import.meta.url));

/** Test seams: where node-llama-cpp is (to simulate its absence) and which child script runs. */
export interface EngineHostSeams {
  findEngine?: () => { found?: EngineModule; wrongVersions: string[] };
  childScript?: string;
}

interface Pending {
  op: string;
  args: unknown;
  /** Sent again once already (after the child was killed for another request). */
  resent?: boolean;
  /** The child it was last sent to. */
  sentTo?: Child;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onChunk?: (c: CompleteChunk) => void;
  timer?: NodeJS.Timeout;
}

interface Runtime {
  llamaCppBuild?: string;
  contextSize: number;
  loadMs: number;
}

interface Child {
  proc: ChildProcess;
  ready: Promise<Runtime>;
  /** The model has loaded. */
  loaded?: boolean;
  stderrTail: string[];
  /** The request the host killed this child to stop (its deadline, or an abort it did not obey). */
  killedFor?: number;
}

/** How long a request has, after its abort, to stop before its child is killed (native code does not look). */
export const ABORT_GRACE_MS = 1000;

/** `work`, or the signal's reason as soon as it aborts (`work` goes on; its failure is then nobody's). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The last stderr line worth quoting (a GGML assert, an error), for a crash message. */
function lastUsefulLine(lines: string[]): string | undefined {
  const useful = lines.filter((l) => !/^\s*\d+: /.test(l)); // not the frames of a native stack trace
  return (
    [...useful].reverse().find((l) => /GGML_ASSERT|GGML_ABORT/.test(l)) ??
    [...useful].reverse().find((l) => /error|failed/i.test(l))
  );
}

export class EngineHost implements Engine {
  readonly options: Required<Omit<EngineOptions, 'requestTimeoutMs' | 'batchSize'>> &
    Pick<EngineOptions, 'requestTimeoutMs' | 'batchSize'>;
  private child: Child | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  private facts: Promise<GgufFacts> | undefined;
  private runtime: Runtime | undefined;
  /** How many children have been started (1 + restarts after crashes). */
  starts = 0;

  constructor(
    options: EngineOptions,
    private readonly seams: EngineHostSeams = {},
  ) {
    const positive = (n: number | undefined, d: number, what: string): number => {
      const v = n ?? d;
      if (!Number.isInteger(v) || v < 1)
        throw new EngineError('request', `engine option ${what} must be a positive integer, got ${String(n)}`);
      return v;
    };
    this.options = {
      modelPath: options.modelPath,
      threads: positive(options.threads, 1, 'threads'),
      contextSize: positive(options.contextSize, DEFAULT_CONTEXT_SIZE, 'contextSize'),
      sequences: positive(options.sequences, 1, 'sequences'),
      ...(options.batchSize !== undefined ? { batchSize: positive(options.batchSize, 512, 'batchSize') } : {}),
      ...(options.requestTimeoutMs !== undefined
        ? { requestTimeoutMs: positive(options.requestTimeoutMs, 1, 'requestTimeoutMs') }
        : {}),
    };
  }

  /** The GGUF facts (header, hashes), read once without loading the model. */
  private gguf(): Promise<GgufFacts> {
    this.facts ??= ggufFacts(this.options.modelPath);
    this.facts.catch(() => (this.facts = undefined));
    return this.facts;
  }

  /** Start the child (once; again after a crash) and wait for the model to load. */
  async start(): Promise<void> {
    await this.ensureChild();
  }

  private async ensureChild(): Promise<Child> {
    if (this.closed) throw new EngineError('closed', 'the engine was closed');
    if (this.child && !this.child.proc.connected) this.child = undefined; // exited; its exit handler is on its way
    if (this.child) {
      await this.child.ready;
      return this.child;
    }
    const mod = requireNodeLlamaCpp(this.seams.findEngine);
    const facts = await this.gguf();
    if (this.closed) throw new EngineError('closed', 'the engine was closed');
    if (this.child) return this.ensureChild(); // another request started it meanwhile
    const o = this.options;
    const proc = fork(this.seams.childScript ?? CHILD, [], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {
        // Not the parent's NODE_OPTIONS (a test runner's or tsx's loaders): the child is plain JavaScript.
        ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS')),
        // A GGML assert otherwise has the dying process run gdb for a native backtrace (about 0.8 CPU-s), whose
        // frames the crash message leaves out anyway (lastUsefulLine).
        GGML_NO_BACKTRACE: '1',
        TOOLGAUGE_ENGINE_ENTRY: mod.entry,
        TOOLGAUGE_ENGINE_OPTIONS: JSON.stringify({
          modelPath: o.modelPath,
          threads: o.threads,
          contextSize: o.contextSize,
          sequences: o.sequences,
          batchSize: o.batchSize,
          vocabSize: facts.vocabSize,
        }),
      },
    });
    // A child stuck inside llama.cpp never sees its IPC channel close: it is killed when this process ends.
    endWithHost(proc);
    this.starts++;
    const stderrTail: string[] = [];
    proc.stderr!.setEncoding('utf8');
    proc.stderr!.on('data', (d: string) => {
      for (const l of d.split('\n')) if (l.trim()) stderrTail.push(l.trim());
      if (stderrTail.length > 50) stderrTail.splice(0, stderrTail.length - 50);
    });
    let settleReady!: { resolve: (r: Runtime) => void; reject: (e: Error) => void };
    const ready = new Promise<Runtime>((resolve, reject) => (settleReady = { resolve, reject }));
    ready.catch(() => {});
    const child: Child = { proc, ready, stderrTail };
    this.child = child;
    proc.on('message', (msg: Record<string, unknown>) => {
      if ('ready' in msg) {
        if (msg.ready) {
          this.runtime = msg.runtime as Runtime;
          child.loaded = true;
          settleReady.resolve(this.runtime);
        } else {
          settleReady.reject(
            new EngineError('load', `${o.modelPath}: llama.cpp could not load the model: ${String(msg.error)}`),
          );
        }
        return;
      }
      const p = this.pending.get(msg.id as number);
      if (!p) return;
      if ('chunk' in msg) return p.onChunk?.(msg.chunk as CompleteChunk);
      this.settle(msg.id as number);
      if (msg.kind !== 'grammar') stderrTail.length = 0; // what came before an answer is not why the child dies later
      if (msg.ok) p.resolve(msg.result);
      else if (msg.kind === 'grammar')
        void this.grammarDetail(stderrTail).then((d) =>
          p.reject(new EngineError('grammar', `${String(msg.message)}${d ? `: ${d}` : ''}`)),
        );
      else p.reject(new EngineError(msg.kind as EngineErrorKind, String(msg.message)));
    });
    proc.on('error', () => {}); // exit follows
    // 'close', not 'exit': it comes after stderr has ended, and stderr's last line holds the assert that killed it.
    proc.on('close', (code, signal) => {
      setImmediate(() => {
        if (this.child === child) this.child = undefined;
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        // Source paths of the build machine say nothing to a user: keep `file.cpp:line: GGML_ASSERT(...)`.
        const detail = lastUsefulLine(stderrTail)
          ?.replace(/\S*\/(?=[\w.-]+:\d+:)/, '')
          .slice(0, 300);
        const what = `the llama.cpp engine process ${how}${detail ? `: ${detail}` : ''}`;
        const err = new EngineError('crash', `${o.modelPath}: ${what}`);
        settleReady.reject(
          this.closed
            ? new EngineError('closed', 'the engine was closed')
            : new EngineError('load', `${o.modelPath}: llama.cpp could not load the model: ${what}`),
        );
        for (const id of [...this.pending.keys()]) {
          const p = this.pending.get(id)!;
          // Killed to stop another request: this one did nothing wrong, and runs again on the next child (once;
          // not a streamed one, whose chunks were delivered already).
          if (child.killedFor !== undefined && !this.closed && !p.resent && !p.onChunk) {
            p.resent = true;
            void this.resend(id, p);
            continue;
          }
          this.settle(id);
          p.reject(
            this.closed
              ? new EngineError('closed', `the engine was closed during ${p.op}`)
              : new EngineError('crash', `${err.message} while serving ${p.op}; the next request starts a new one`),
          );
        }
        // Killed to stop a request, not broken: the next child loads now, so the next request need not wait for it.
        if (child.killedFor !== undefined && !this.closed && !this.child) void this.ensureChild().catch(() => {});
      });
    });
    try {
      await ready; // referenced until loaded: a caller awaiting start() keeps the process alive
    } finally {
      this.idle(child);
    }
    return child;
  }

  /**
   * llama.cpp prints why it refused a grammar on the child's stderr, which may arrive just after the answer: wait
   * briefly for that line (it names the rule or the position).
   */
  private async grammarDetail(tail: string[]): Promise<string | undefined> {
    // The tail is emptied at every other answer and after each grammar error: what it holds is this request's.
    for (let i = 0; i < 10; i++) {
      const at = tail.findLastIndex((l) => /error parsing grammar/.test(l));
      if (at !== -1) {
        const detail = tail[at]!.replace(/^.*error parsing grammar:\s*/, '');
        tail.length = 0;
        return detail.slice(0, 200);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    return undefined;
  }

  /** The child keeps this process alive only while requests are pending. */
  private idle(child: Child): void {
    const busy = this.pending.size > 0;
    const ref = (h: { ref?: () => void; unref?: () => void } | null | undefined) => (busy ? h?.ref?.() : h?.unref?.());
    ref(child.proc);
    ref(child.proc.channel as never);
    ref(child.proc.stderr as never);
  }

  private settle(id: number): void {
    const p = this.pending.get(id);
    if (p?.timer) clearTimeout(p.timer);
    this.pending.delete(id);
    if (this.child) this.idle(this.child);
  }

  /** Send a pending request (again) to the current child, starting one if needed. */
  private async resend(id: number, p: Pending): Promise<void> {
    try {
      const child = await this.ensureChild();
      if (this.pending.get(id) !== p) return; // settled meanwhile (its timeout)
      this.idle(child);
      p.sentTo = child;
      child.proc.send({ id, op: p.op, args: p.args });
    } catch (err) {
      if (this.pending.get(id) !== p) return;
      this.settle(id);
      p.reject(err as Error);
    }
  }

  /** Kill the child serving request `id` to stop it: it answers `err`, the others run again on the next child. */
  private killFor(id: number, err: EngineError): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.settle(id);
    p.reject(err);
    // Only the child that is running it: a request waiting for a new child to load holds nothing.
    const child = this.child;
    if (!child || p.sentTo !== child || !child.proc.connected) return;
    child.killedFor = id;
    child.proc.kill('SIGKILL');
  }

  private async request<T>(
    op: string,
    args: unknown,
    extra: { onChunk?: (c: CompleteChunk) => void; signal?: AbortSignal } = {},
  ): Promise<T> {
    extra.signal?.throwIfAborted();
    // An abort while the child loads ends the wait; the request is never sent. (Sent after its signal fired, its
    // abort listener would never run: a request stuck in llama.cpp would hold the child until the host closes.)
    const child = await untilAborted(this.ensureChild(), extra.signal);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const p: Pending = {
        op,
        args,
        resolve: resolve as (v: unknown) => void,
        reject,
        ...(extra.onChunk ? { onChunk: extra.onChunk } : {}),
      };
      this.pending.set(id, p);
      this.idle(child);
      p.sentTo = child;
      if (this.options.requestTimeoutMs) {
        p.timer = setTimeout(
          () =>
            this.killFor(
              id,
              new EngineError(
                'timeout',
                `${op} took longer than ${this.options.requestTimeoutMs} ms; the engine process is restarted`,
              ),
            ),
          this.options.requestTimeoutMs,
        );
      }
      const signal = extra.signal;
      if (signal) {
        // The child stops a generation at its next token; a request stuck inside llama.cpp (a grammar whose
        // parse stacks explode) never gets there, so after a grace period its child is killed.
        const onAbort = () => {
          if (!this.pending.has(id)) return;
          if (this.child?.proc.connected) this.child.proc.send({ op: 'abort', target: id });
          // Other requests on the same child wait behind this one: no grace then, they are held up already.
          const others = [...this.pending.values()].some((q) => q !== p && q.sentTo === this.child);
          const grace = setTimeout(
            () =>
              this.killFor(
                id,
                new EngineError(
                  'request',
                  `the request was aborted; ${op} did not stop within ${ABORT_GRACE_MS} ms, so the engine process is restarted`,
                ),
              ),
            others ? 0 : ABORT_GRACE_MS,
          );
          grace.unref();
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }
      child.proc.send({ id, op, args });
    });
  }

  /** A child is up with the model loaded: a request now starts at once. */
  loaded(): boolean {
    return !!this.child?.loaded && this.child.proc.connected;
  }

  async info(): Promise<EngineInfo> {
    await this.ensureChild();
    const f = await this.gguf();
    const r = this.runtime!;
    return {
      engine: ENGINE_NAME,
      ...(r.llamaCppBuild ? { llamaCppBuild: r.llamaCppBuild } : {}),
      file: f.file,
      sha256: f.sha256,
      bytes: f.bytes,
      architecture: f.architecture,
      tensorType: f.tensorType,
      vocabSize: f.vocabSize,
      contextSize: r.contextSize,
      sequences: this.options.sequences,
      threads: this.options.threads,
      ...(f.chatTemplate !== undefined
        ? { chatTemplate: f.chatTemplate, chatTemplateSha256: f.chatTemplateSha256! }
        : {}),
      testModel: f.testModel,
      ...(f.bosToken !== undefined ? { bosToken: f.bosToken } : {}),
      ...(f.eosToken !== undefined ? { eosToken: f.eosToken } : {}),
      loadMs: r.loadMs,
    };
  }

  tokenize(text: string, opts: { specialTokens?: boolean } = {}): Promise<number[]> {
    return this.request('tokenize', { text, specialTokens: opts.specialTokens ?? true });
  }

  /** Ids outside the vocabulary are refused here: llama.cpp aborts its process on one. */
  async detokenize(tokens: number[]): Promise<string> {
    const { vocabSize } = await this.gguf();
    const ids = checkRequest(
      z.array(tokenId.max(vocabSize - 1, `not a token id (the vocabulary has ${vocabSize})`)),
      'detokenize',
      tokens,
    );
    return this.request('detokenize', { tokens: ids });
  }

  async complete(req: CompleteRequest, opts: CompleteOptions = {}): Promise<CompleteResult> {
    // A request its caller's boundary already checked to these rules is not checked a second time (types.ts).
    const ok = opts.checked ? req : checkRequest(CompleteRequestSchema, 'complete', req);
    return this.request('complete', { ...ok, stream: !!opts.onChunk }, opts);
  }

  async nextTokenDistributions(req: DistributionsRequest): Promise<DistributionsResult> {
    return this.request('distributions', checkRequest(DistributionsRequestSchema, 'nextTokenDistributions', req));
  }

  async checkGrammar(grammar: string): Promise<void> {
    await this.request('grammar', { grammar: checkRequest(z.string().min(1), 'checkGrammar', grammar) });
  }

  /** For tests: make the child abort as a GGML assert would. */
  crashForTest(): Promise<never> {
    return this.request('crash', {});
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.proc.once('close', () => resolve()));
    if (child.proc.exitCode === null && child.proc.signalCode === null) {
      if (child.proc.connected) child.proc.send({ op: 'close' });
      const t = setTimeout(() => child.proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
  }
}
