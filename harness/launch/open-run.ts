import { prefetchGitState } from '../core/repro.ts';
import { UsageError } from '../core/errors.ts';
import { assertOutDirWritable } from '../kit/out-dir-check.ts';
import type { RunPlan } from '../kit/plan.ts';
import type { OutDirMode } from '../kit/outdir.ts';
import { claimOutDir, isDirRefusal } from '../kit/resume-check.ts';
import { sandboxOptionsOf } from '../kit/sandbox-options.ts';
import type { AnySuite } from '../kit/types.ts';
import type { Sandbox } from '../sandbox/index.ts';
import type { EarlySandbox } from './early-sandbox.ts';
import { SIMULATOR_OWNER } from '../sim/owner.ts';
import { unlistedModel } from './model-listed.ts';
import type { Responder } from '../sim/server.ts';

// The engine, the endpoint check, the simulator and the sandbox load only when the run uses them (a describeEval run
// against an endpoint needs none of the sandbox's or the engine's modules in its main process).

/** What a run opens besides its plan; every step is optional, the order is fixed (docs/ARCHITECTURE.md). */
export interface OpenRunOptions {
  /** The command in messages (`toolgauge toolhop`): every refusal is one line naming it. */
  command: string;
  /** The run's suites: their responders play the simulator, `needsSimulator` may ask for it. */
  suites: readonly AnySuite[];
  /** The output directory (or the folder each suite writes under): checked writable before the first request. */
  outDir: string;
  /** Take the output directory's lock for the run (and check it for a resume or merge) before anything runs. */
  claim?: { suite: AnySuite; settings: unknown; dir: string; mode: OutDirMode };
  /** The run makes no model request (a merge of blob reports): no engine, endpoint check, simulator or sandbox. */
  noRequests?: boolean;
  /** The command's own checks, once the engine is up (they may ask the run's endpoint about itself). */
  check?: (plan: RunPlan) => void | Promise<void>;
  /** The endpoint was checked already in this run (by the launcher that provided the plan). */
  endpointChecked?: boolean;
  /** The endpoint check, when the suite's requests are not OpenAI chat completions (Maze's Anthropic agents …). */
  preflight?: (plan: RunPlan) => Promise<void>;
  /** `--smoke`: one tool call from a real endpoint before the run (harness/launch/smoke.ts). */
  smoke?: boolean;
  /** Simulator responders beyond the suites' own (the optimizer's reflection model). */
  responders?: Record<string, Responder>;
  /** Start the simulator even though the run's model has an endpoint (a second, simulated model of the run). */
  simulator?: boolean;
  /** Serve the sandbox to the run's test workers over a socket, when a suite calls sandboxed tools. */
  serveSandbox?: boolean;
  /** The sandbox the caller started before the run opened (early-sandbox.ts): served instead of a new one. */
  sandbox?: EarlySandbox | undefined;
}

/** A run that is open: its plan, completed (endpoint, engine facts, simulator, sandbox socket), and its one close. */
export interface OpenedRun {
  plan: RunPlan;
  /** Stops what the run started and gives back its lock, in the reverse order; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Open a run: every entry point (`toolgauge <suite>`, `toolgauge eval`, plain `vitest run`, an in-process `runSuite`,
 * the optimizer) calls this one function, in this order: the output directory can be written; a `gguf:` model's local
 * engine starts (or the `--base-url` server serving the file is asked for its facts); the command's own checks run; a
 * real endpoint answers (and
 * `--smoke` makes one tool call); the output directory's lock is taken (a resume or merge is checked); the sandbox starts
 * and is served to the workers; the simulator starts when the run needs it; the model's provenance is recorded. A refusal is a UsageError (one
 * line, exit 2) and closes whatever was opened before it; `close()` stops the rest on every other way out.
 */
export async function openRun(plan: RunPlan, o: OpenRunOptions): Promise<OpenedRun> {
  prefetchGitState();
  const closers: Array<() => Promise<void> | void> = [];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const c of closers.reverse()) await Promise.resolve(c()).catch(() => undefined);
  };
  try {
    // Before the first request: a run that cannot write its results must not pay for a single model call.
    assertOutDirWritable(o.command, o.outDir);
    const requests = !o.noRequests && plan.run.cache !== 'replay';
    if (requests && plan.run.engine && !plan.run.engine.facts) {
      const { prepareRunEngine } = await import('../serve/run-engine.ts');
      const engine = (await prepareRunEngine(plan.run, o.command))!;
      closers.push(() => engine.close());
      plan.run.baseUrl = engine.url;
      plan.run.engine.facts = engine.facts;
    }
    await o.check?.(plan);
    if (requests && plan.run.baseUrl && !o.endpointChecked) {
      await checkEndpointOf(plan, o);
      if (o.smoke) await (await import('./smoke.ts')).runSmoke(o.command.replace(/^toolgauge /, ''), plan.run);
    }
    if (o.claim) {
      try {
        closers.push(
          await claimOutDir(o.claim.suite, plan.run, o.claim.settings, {
            dir: o.claim.dir,
            runId: plan.runId,
            mode: o.claim.mode,
          }),
        );
      } catch (err) {
        if (isDirRefusal((err as Error).name)) throw new UsageError(`${o.command}: ${(err as Error).message}`);
        throw err;
      }
    }
    // The sandbox's worker boots for about a second, longer than anything else the run opens, and the first tool call
    // waits for it: it starts as soon as the run is known to go ahead (its lock held), before the simulator and the
    // provenance request, which then run while it boots.
    if (!o.noRequests && o.serveSandbox && plan.prewarmSandbox && !plan.sandboxSocket)
      await serveSandboxFor(plan, closers, o.sandbox?.take() ?? null);
    if (!o.noRequests && !plan.simUrl && (!plan.run.baseUrl || o.simulator || wantsSimulator(plan, o.suites))) {
      const { startSimServer } = await import('../sim/server.ts');
      const sim = await startSimServer({ responders: { ...respondersOf(plan, o.suites), ...o.responders } });
      closers.push(() => sim.close());
      plan.simUrl = sim.url;
    }
    // The model's identity from its endpoint (or the simulator) and its file, for the header.
    if (requests) await (await import('./provenance.ts')).recordProvenance(plan);
  } catch (err) {
    await close();
    throw err;
  }
  return { plan, close };
}

async function checkEndpointOf(plan: RunPlan, o: OpenRunOptions): Promise<void> {
  const { checkEndpoint, EndpointUnavailable } = await import('../model/preflight.ts');
  const { parseEndpoint } = await import('../model/endpoint.ts');
  try {
    if (o.preflight) await o.preflight(plan);
    else {
      const listed = await checkEndpoint({
        baseUrl: plan.run.baseUrl!,
        apiKey: plan.run.apiKey,
        model: plan.run.model,
      });
      // A simulator behind --base-url is still a simulator: the report says so whatever the model is called.
      if (listed.owners.includes(SIMULATOR_OWNER)) plan.run.endpointSimulated = true;
      // A gguf: model names a file, not a listed model: the server serving it answers under any name.
      const unlisted = plan.run.engine ? null : unlistedModel(plan.run.model, listed);
      if (unlisted) throw new UsageError(`${o.command}: ${unlisted} (${parseEndpoint(plan.run.baseUrl!).display})`);
    }
  } catch (err) {
    if (err instanceof EndpointUnavailable) throw new UsageError(`${o.command}: ${err.message}`);
    throw err;
  }
}

/** A suite of the run plays a second, simulated model (Maze's `--judge-model sim:judge`) against a real endpoint. */
function wantsSimulator(plan: RunPlan, suites: readonly AnySuite[]): boolean {
  return suites.some((s) => {
    const set = plan.suites[s.name];
    return set?.ok && s.needsSimulator?.(plan.run, set.settings);
  });
}

function respondersOf(plan: RunPlan, suites: readonly AnySuite[]): Record<string, Responder> {
  const out: Record<string, Responder> = {};
  for (const s of suites) {
    const set = plan.suites[s.name];
    if (set?.ok && s.responder) out[s.name] = s.responder(plan.run, set.settings);
  }
  return out;
}

/**
 * The sandbox boots now, in the run's main process, while Vitest starts the test worker and the worker loads the
 * suite; the worker calls it over a socket. A pool the worker started itself would begin booting only after all that.
 */
async function serveSandboxFor(
  plan: RunPlan,
  closers: Array<() => Promise<void> | void>,
  early: Promise<Sandbox> | null,
): Promise<void> {
  const [{ createSandbox }, { serveSandbox }] = await Promise.all([
    import('../sandbox/index.ts'),
    import('../sandbox/remote.ts'),
  ]);
  const pool = (await early?.catch(() => null)) ?? createSandbox(sandboxOptionsOf(plan.run));
  if (!early) void pool.warm().catch(() => undefined); // a worker that cannot start fails the first call, with its reason
  try {
    const server = await serveSandbox(pool);
    plan.sandboxSocket = { path: server.path, token: server.token };
    closers.push(async () => {
      await server.close();
      await pool.close();
    });
  } catch {
    // No socket here (a read-only temporary folder, or no folder with a short enough path): the test worker starts
    // a pool of its own, as it would anyway.
    await pool.close();
  }
}
