// The narrow interface multi-turn checking needs from whatever runs BFCL's simulated APIs, and its implementation:
// a CPython worker (python/bfcl_exec.py) that imports BFCL's own classes once and runs every instance in a fresh
// process forked from itself, so nothing one case (or one run of a case) does survives into another. Calls reach
// it as data — a documented method name and literal argument values, prepared here by call-data.ts — never as
// source text. The worker is confined like the sandbox's CPython workers (own network, PID and mount namespaces
// with a private /proc, own uid where the host allows it; harness/sandbox/confine.ts), its instances run under
// the sandbox's audit hook with no right to create processes, and it has a memory limit and a per-request time
// limit.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { confined } from '../sandbox/confine.ts';
import { PYTHON_WORKER_ENV } from '../sandbox/python-env.ts';
import { spawnWorker, type SpawnedWorker } from '../sandbox/spawn-worker.ts';
import { bytecodeAnswer, bytecodeFolder, keepBytecode, readBytecode } from './bytecode-cache.ts';
import { prepareCall, REFUSED_NAMES, type CallData, type CallScope, type PreparedCall } from './call-data.ts';
import { ExecutorError } from './executor-error.ts';

export interface InstanceSpec {
  /** BFCL class names (`involved_classes`). */
  classes: readonly string[];
  /** `initial_config` as JSON text (kept as written, so ints and floats stay as they are). */
  initialConfigJson: string;
  /** long_context / composite categories load bigger scenarios. */
  longContext: boolean;
  /**
   * The name BFCL would give this run's instances (`<model>_<entry id>`, with `_ground_truth` for the reference
   * run). BFCL rewrites every `name(` in a call string — string contents included — to `<label>_<Class>_instance.name(`,
   * so the label can show up in results.
   */
  label: string;
  /** The case's function names (its docs, held-out ones included): only these may run. */
  functions: readonly string[];
}

export interface StateComparison {
  valid: boolean;
  /** class → attribute → both values (readable JSON); only the first differing class, as BFCL reports it. */
  differences: Record<string, Record<string, { model: unknown; ground_truth: unknown }>>;
}

export type Handle = string;

export interface BfclExecutor {
  start(spec: InstanceSpec): Promise<Handle>;
  /** Run call strings in order; each result is what BFCL's evaluator records (text, or "Error during execution: …"). */
  call(handle: Handle, calls: readonly string[]): Promise<string[]>;
  /** BFCL's state check: every public attribute of every ground-truth class compared with Python's `!=`. */
  compare(model: Handle, groundTruth: Handle): Promise<StateComparison>;
  /** Public attributes per class as readable JSON (for reports). */
  snapshot(handle: Handle): Promise<Record<string, Record<string, unknown>>>;
  close(handle: Handle): Promise<void>;
  /**
   * Many cases in two requests (start every instance, then run every case): each case keeps its own two instances
   * and ends them; a case whose instance fails gets an ExecutorError in its place, the others their turns. The
   * worker runs a case as two requests to its processes (the model's whole run with its states, then the ground
   * truth's run checked against them): the model's process may run turns past the one the checker stops at.
   */
  startMany(specs: readonly InstanceSpec[]): Promise<Array<Handle | ExecutorError>>;
  runCases(cases: readonly CaseRun[]): Promise<Array<CaseOutcome | ExecutorError>>;
  /** Stop the worker. */
  dispose(): Promise<void>;
}

/** One case's turns for runCases: the model's decoded steps and the ground truth's calls per turn. */
export interface CaseRun {
  model: Handle;
  groundTruth: Handle;
  turns: ReadonlyArray<{ steps: readonly (readonly string[])[]; groundTruth: readonly string[]; compare: boolean }>;
}

/** What runCases ran: per turn the results (and the state comparison when asked); it stops after differing states. */
export interface CaseOutcome {
  turns: Array<{ model: string[][]; ground_truth: string[]; state?: StateComparison }>;
}

export { ExecutorError };

export const EXEC_SCRIPT = fileURLToPath(new URL('./python/bfcl_exec.py', import.meta.url));
/** The sandbox's runtime folder: the worker installs its audit hook (sandbox_guard.py) in every instance. */
const GUARD_DIR = fileURLToPath(new URL('../sandbox/runtime', import.meta.url));

export interface PythonExecutorOptions {
  /** The folder with BFCL's class files (gorilla_file_system.py …); see findBfclSource. */
  sourceDir: string;
  /** Default /usr/bin/python3 (Debian's, which has mpmath); a run passes its --python / TOOLGAUGE_PYTHON. */
  pythonPath?: string;
  /** Per request (default 30 000 ms): a hung call kills the worker. */
  timeoutMs?: number;
  memoryLimitMb?: number;
  /** Off only for debugging (a run's TOOLGAUGE_SANDBOX_CONFINE=0, passed in at its edge). */
  confine?: boolean;
  /**
   * A folder of this user's (bytecode-cache.ts) where the class files' bytecode is kept between workers; without it
   * each worker compiles them.
   */
  bytecodeRoot?: string;
}

const CLASS_FILES = [
  'gorilla_file_system.py',
  'math_api.py',
  'message_api.py',
  'posting_api.py',
  'ticket_api.py',
  'trading_bot.py',
  'travel_booking.py',
  'vehicle_control.py',
];
const hasClassFiles = (dir: string) => CLASS_FILES.some((f) => existsSync(join(dir, f)));

/** Where BFCL's class files are: the option, TOOLGAUGE_BFCL_SOURCE, or an installed bfcl_eval package. */
export async function findBfclSource(option: string | undefined, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const candidates = [option, env.TOOLGAUGE_BFCL_SOURCE].filter((x): x is string => !!x);
  for (const c of candidates) {
    for (const dir of [
      c,
      join(c, 'eval_checker', 'multi_turn_eval', 'func_source_code'),
      join(c, 'bfcl_eval', 'eval_checker', 'multi_turn_eval', 'func_source_code'),
    ]) {
      if (hasClassFiles(dir)) return dir;
    }
  }
  const python = env.TOOLGAUGE_PYTHON || '/usr/bin/python3';
  // Loaded when used: most runs never start a process, and execa's modules are a third of the CLI's start-up.
  const { execa } = await import('execa');
  const probe = await execa(python, ['-c', 'import bfcl_eval, os; print(os.path.dirname(bfcl_eval.__file__))'], {
    reject: false,
  });
  if (probe.exitCode === 0) {
    const dir = join(probe.stdout.trim(), 'eval_checker', 'multi_turn_eval', 'func_source_code');
    if (existsSync(join(dir, 'gorilla_file_system.py'))) return dir;
  }
  return undefined;
}

const answerSchema = z.object({ error: z.string().optional() }).passthrough();
const readySchema = z.object({ ready: z.literal(true), bytecode: bytecodeAnswer });
const startSchema = z.object({ methods: z.record(z.string(), z.string()) });
const resultsSchema = z.object({ results: z.array(z.string()) });
const stateSchema = z.object({
  valid: z.boolean(),
  differences: z.record(z.string(), z.record(z.string(), z.object({ model: z.unknown(), ground_truth: z.unknown() }))),
});
const caseError = z.object({ error: z.string() });
const ranTurn = z.object({
  model: z.array(z.array(z.string())),
  ground_truth: z.array(z.string()),
  state: stateSchema.optional(),
});
const startManySchema = z.object({ answers: z.array(z.union([caseError, startSchema])) });
const runCasesSchema = z.object({
  cases: z.array(
    z.union([caseError.extend({ turns: z.array(ranTurn).optional() }), z.object({ turns: z.array(ranTurn) })]),
  ),
});

export class PythonBfclExecutor implements BfclExecutor {
  private worker: SpawnedWorker | undefined;
  private ready: Promise<void> | undefined;
  private buffer = '';
  private stderrTail = '';
  private waiting: Array<{ resolve: (v: unknown) => void; reject: (e: Error) => void; timer?: NodeJS.Timeout }> = [];
  private nextHandle = 0;
  /** Per live handle: which calls may run and how BFCL names their instances. */
  private readonly scopes = new Map<Handle, CallScope>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: PythonExecutorOptions) {}

  private async launch(): Promise<void> {
    const python = this.opts.pythonPath ?? '/usr/bin/python3';
    const bytecodeDir = this.opts.bytecodeRoot
      ? bytecodeFolder(this.opts.bytecodeRoot, this.opts.sourceDir)
      : undefined;
    const config = {
      sourceDir: this.opts.sourceDir,
      memoryLimitMb: this.opts.memoryLimitMb ?? 1024,
      runtimeDir: GUARD_DIR,
      ...(bytecodeDir ? { bytecode: true } : {}),
    };
    // -s, not -I (whose -E would ignore PYTHONHASHSEED): the environment below is the whole environment.
    const args = ['-s', '-B', EXEC_SCRIPT, JSON.stringify(config)];
    const cmd = this.opts.confine === false ? { file: python, args } : confined(python, args, { privateProc: true });
    // node:child_process (spawn-worker.ts), not execa: loading execa cost each rescore about 0.1 s of CPU.
    // LD_BIND_NOW: the worker resolves every C symbol once, at its start. Lazily bound, each instance's process
    // resolved the libc functions the parent had not called yet (close_range, getppid, prlimit, …) itself, and
    // wrote the result into the parent's copy-on-write pages: about 40 page faults per case.
    const worker = spawnWorker(cmd.file, cmd.args, { ...PYTHON_WORKER_ENV, LD_BIND_NOW: '1' });
    const { child } = worker;
    this.worker = worker;
    child.stdin.on('error', () => {}); // EPIPE after the worker died: its exit is reported below
    // The worker may not read this user's files: the kept bytecode is its first line.
    if (bytecodeDir) child.stdin.write(`${JSON.stringify({ files: readBytecode(bytecodeDir) })}\n`);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      this.stderrTail = (this.stderrTail + s).slice(-2000);
    });
    child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        const w = this.waiting.shift();
        if (w) {
          clearTimeout(w.timer);
          try {
            w.resolve(JSON.parse(line));
          } catch (err) {
            w.reject(new ExecutorError(`bad worker answer: ${(err as Error).message}`));
          }
        }
      }
    });
    // Only the current worker's exit matters: a worker killed on timeout exits after its replacement started.
    void worker.exited.then(({ spawnError }) => {
      const why = spawnError ?? this.stderrTail.trim();
      if (this.worker === worker) this.fail(new ExecutorError(`BFCL executor exited${why ? `: ${why}` : ''}`));
    });
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({
        resolve: (ready) => {
          // The bytecode the worker compiled is kept for the next one (a cache: a bad answer only skips it).
          const bytecode = readySchema.safeParse(ready);
          if (bytecodeDir && bytecode.success && bytecode.data.bytecode)
            keepBytecode(bytecodeDir, bytecode.data.bytecode);
          resolve();
        },
        reject,
      });
    });
  }

  private fail(err: Error): void {
    this.worker = undefined;
    this.scopes.clear();
    this.ready = undefined;
    for (const w of this.waiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }

  private request<T>(req: Record<string, unknown>, cases = 1): Promise<T> {
    // One request at a time: the worker answers in order, and a timeout must blame the right request.
    const run = async (): Promise<T> => {
      this.ready ??= this.launch();
      await this.ready;
      const child = this.worker?.child;
      if (!child) throw new ExecutorError('BFCL executor is not running');
      const answer = await new Promise<unknown>((resolve, reject) => {
        const limit = (this.opts.timeoutMs ?? 30_000) * cases;
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          this.buffer = '';
          this.fail(
            new ExecutorError(
              `BFCL executor: ${String(req.op)} took longer than ${limit} ms (worker killed; its instances are lost)`,
            ),
          );
        }, limit);
        this.waiting.push({ resolve, reject, timer });
        child.stdin.write(`${JSON.stringify(req)}\n`);
      });
      const parsed = answerSchema.parse(answer);
      if (parsed.error) throw new ExecutorError(`BFCL executor: ${parsed.error}`);
      return answer as T;
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  private startRequest(spec: InstanceSpec): { handle: Handle; req: Record<string, unknown> } {
    const handle = `h${this.nextHandle++}`;
    return {
      handle,
      req: {
        op: 'start',
        handle,
        classes: spec.classes,
        initial_config: spec.initialConfigJson,
        long_context: spec.longContext,
        label: spec.label,
        functions: spec.functions,
      },
    };
  }

  private keepScope(handle: Handle, spec: InstanceSpec, methods: Record<string, string>): Handle {
    const methodToVar = new Map(Object.entries(methods));
    const allowed = new Set(spec.functions.filter((f) => methodToVar.has(f) && !REFUSED_NAMES.has(f)));
    this.scopes.set(handle, { methodToVar, allowed });
    return handle;
  }

  async start(spec: InstanceSpec): Promise<Handle> {
    const { handle, req } = this.startRequest(spec);
    const { methods } = startSchema.parse(await this.request<unknown>(req));
    return this.keepScope(handle, spec, methods);
  }

  async startMany(specs: readonly InstanceSpec[]): Promise<Array<Handle | ExecutorError>> {
    if (specs.length === 0) return [];
    const reqs = specs.map((s) => this.startRequest(s));
    const { answers } = startManySchema.parse(
      await this.request<unknown>({ op: 'start_many', starts: reqs.map((r) => r.req) }, specs.length),
    );
    if (answers.length !== specs.length)
      throw new ExecutorError(`BFCL executor: ${specs.length} instances asked, ${answers.length} answers`);
    return answers.map((a, k) =>
      'error' in a
        ? new ExecutorError(`BFCL executor: ${a.error}`)
        : this.keepScope(reqs[k]!.handle, specs[k]!, a.methods),
    );
  }

  /** Calls the case may not run are answered here (as in `call`); only the others reach the worker, as data. */
  async runCases(cases: readonly CaseRun[]): Promise<Array<CaseOutcome | ExecutorError>> {
    if (cases.length === 0) return [];
    const prepared = cases.map((c) => {
      const model = this.scopes.get(c.model);
      const gt = this.scopes.get(c.groundTruth);
      if (!model || !gt) return undefined;
      return c.turns.map((t) => ({
        steps: t.steps.map((calls) => calls.map((call) => prepareCall(call, model))),
        groundTruth: t.groundTruth.map((call) => prepareCall(call, gt)),
        compare: t.compare,
      }));
    });
    const data = (p: PreparedCall[]): CallData[] => p.flatMap((x): CallData[] => ('call' in x ? [x.call] : []));
    const merge = (p: PreparedCall[], ran: readonly string[]): string[] => {
      let next = 0;
      const out = p.map((x) => ('call' in x ? ran[next++] : x.result));
      if (next !== ran.length || out.some((r) => r === undefined))
        throw new ExecutorError(`BFCL executor: ${next} calls sent, ${ran.length} results`);
      return out as string[];
    };
    const sent = cases.flatMap((c, k) =>
      prepared[k]
        ? [
            {
              model: c.model,
              ground_truth: c.groundTruth,
              turns: prepared[k].map((t) => ({
                steps: t.steps.map(data),
                ground_truth: data(t.groundTruth),
                compare: t.compare,
              })),
            },
          ]
        : [],
    );
    for (const c of cases) {
      this.scopes.delete(c.model);
      this.scopes.delete(c.groundTruth);
    }
    const answered = sent.length
      ? runCasesSchema.parse(await this.request<unknown>({ op: 'run_cases', cases: sent }, sent.length)).cases
      : [];
    if (answered.length !== sent.length)
      throw new ExecutorError(`BFCL executor: ${sent.length} cases sent, ${answered.length} answers`);
    let next = 0;
    return cases.map((c, k): CaseOutcome | ExecutorError => {
      const turns = prepared[k];
      if (!turns) return new ExecutorError(`BFCL executor: no instance ${c.model} or ${c.groundTruth}`);
      const a = answered[next++]!;
      const outcome = (ran: z.infer<typeof ranTurn>[]): CaseOutcome => ({
        turns: ran.map((t, i) => ({
          model: t.model.map((ran, j) => merge(turns[i]!.steps[j]!, ran)),
          ground_truth: merge(turns[i]!.groundTruth, t.ground_truth),
          ...(t.state ? { state: t.state } : {}),
        })),
      });
      try {
        if (!('error' in a)) return outcome(a.turns);
        const err = new ExecutorError(`BFCL executor: ${a.error}`);
        if (a.turns?.length) err.ranBefore = outcome(a.turns).turns;
        return err;
      } catch (err) {
        return err as ExecutorError;
      }
    });
  }

  /** Calls the case may not run are answered here; only the others reach the worker, as data. */
  async call(handle: Handle, calls: readonly string[]): Promise<string[]> {
    if (calls.length === 0) return [];
    const scope = this.scopes.get(handle);
    if (!scope) throw new ExecutorError(`BFCL executor: no instance ${handle}`);
    const prepared = calls.map((c) => prepareCall(c, scope));
    const data = prepared.flatMap((p): CallData[] => ('call' in p ? [p.call] : []));
    const ran = data.length
      ? resultsSchema.parse(await this.request<unknown>({ op: 'call', handle, calls: data })).results
      : [];
    if (ran.length !== data.length)
      throw new ExecutorError(`BFCL executor: ${data.length} calls sent, ${ran.length} results`);
    let next = 0;
    return prepared.map((p) => ('call' in p ? ran[next++]! : p.result));
  }

  compare(model: Handle, groundTruth: Handle): Promise<StateComparison> {
    return this.request<StateComparison>({ op: 'compare', model, ground_truth: groundTruth });
  }

  async snapshot(handle: Handle): Promise<Record<string, Record<string, unknown>>> {
    return (await this.request<{ state: Record<string, Record<string, unknown>> }>({ op: 'snapshot', handle })).state;
  }

  async close(handle: Handle): Promise<void> {
    this.scopes.delete(handle);
    if (!this.worker) return;
    await this.request({ op: 'close', handle }).catch(() => undefined);
  }

  async dispose(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    this.scopes.clear();
    if (!worker) return;
    worker.child.stdin.end();
    const timer = setTimeout(() => worker.child.kill('SIGKILL'), 2000);
    await worker.exited;
    clearTimeout(timer);
  }
}
