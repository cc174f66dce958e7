import { randomBytes } from 'node:crypto';
import { readConfig, type RunConfig } from '../core/config.ts';
import type { SandboxAddress } from '../sandbox/remote.ts';
import { resolveRegistryModel } from './registry-model.ts';
import { suiteSamplingPlan, type SamplingPlan } from './sampling.ts';
import type { AnySuite, SuiteOf } from './types.ts';
import { type VitestOptions, vitestOptionsOf } from './vitest-options.ts';

export { type VitestOptions, vitestOptionsOf };

/**
 * The plan of one eval run: one typed value, built once at the edge (the CLI from its flags, config file and
 * environment; Vitest's global setup under plain `vitest run`; an in-process run from its caller's values) by
 * `planRun`, then owned by the run's launcher (harness/launch/open-run.ts), which fills in what only exists once the
 * run is open (the engine's URL and facts, the simulator's URL, the sandbox's socket). Vitest receives it with
 * `provide` and derives its own options from `vitest`; the workers read it with `inject`. Nothing later parses the
 * environment again (docs/ARCHITECTURE.md, "How a run flows").
 */
export interface RunPlan {
  runId: string;
  /**
   * The run's main process (where the plan was built: the CLI, Vitest's global setup): it owns the output
   * directory's lock, which the run's workers join (harness/kit/lock.ts). Unset: the current process.
   */
  ownerPid?: number;
  run: RunConfig;
  suites: Record<string, SuiteSettings>;
  /** Vitest's options for the eval project, derived from `run` (vitestOptionsOf): the one place they are decided. */
  vitest: VitestOptions;
  simUrl: string | undefined;
  /** A filtered run (`-t`) merges into the output directory instead of emptying it. */
  filter: string | null;
  /**
   * Vitest splits the run over shards (`--shard`): then a suite's instances are dealt over all its part files.
   * Unsharded, a small run stays in the first part (files of one worker run one after another, so a run dealt over
   * four files would wait for each file's slowest instance three times) and a large one is dealt over them, so the
   * worker holds one part's tests at a time (kit/deal.ts). Unknown (no global setup) counts as sharded.
   */
  sharded: boolean;
  /** A suite of the run will call sandboxed tools: the run's main process starts the sandbox before the test worker. */
  prewarmSandbox: boolean;
  /**
   * The socket of the sandbox the main process serves and the run's token for it (harness/sandbox/remote.ts); unset:
   * a worker starts its own.
   */
  sandboxSocket?: SandboxAddress;
  /** The run writes a blob report: each test carries its trace file in it, for the merged report. */
  carryTraces?: boolean;
  /**
   * The eval files of a `toolgauge eval` run of several (absolute paths): the test worker learns their evals' names
   * before the first eval runs (harness/vitest/describe-eval.ts).
   */
  evalFiles?: string[];
}

/**
 * A suite's settings as the plan holds them, with the sampling plan the kit hands its instances (harness/kit/sampling.ts;
 * absent for settings read back from shard blobs, whose plan the definition gives again from them).
 */
export type SuiteSettings = { ok: true; settings: unknown; sampling?: SamplingPlan } | { ok: false; error: string };

export function newRunId(now = new Date()): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
}

/**
 * The run id this very process chose earlier (plain Vitest's global setup marks it; a re-run under `vitest --ui` keeps
 * it). Only a value marked with this process's pid counts: one inherited from the environment (a shell, a parent run)
 * would make unrelated runs share a run id, and so join each other's output-directory lock (harness/kit/lock.ts).
 */
export function launcherRunId(env: NodeJS.ProcessEnv): string | undefined {
  return env.TOOLGAUGE_RUN_ID && env.TOOLGAUGE_RUN_ID_PID === String(process.pid) ? env.TOOLGAUGE_RUN_ID : undefined;
}

/** Name `runId` as this process's run for launcherRunId. */
export function markRunId(env: NodeJS.ProcessEnv, runId: string): void {
  env.TOOLGAUGE_RUN_ID = runId;
  env.TOOLGAUGE_RUN_ID_PID = String(process.pid);
}

/**
 * Build the plan from the run's settings source: the environment with the command line's flags (and a config file's
 * keys, which become flags first) laid over it as the variables they stand for (harness/kit/flags/model-flags.ts,
 * `settingsSource`). Each value is parsed here, once: the shared run configuration (harness/core/config.ts), each
 * suite's settings (or the one-line error they gave, raised only when that suite runs) with the sampling plan its
 * instances are handed (the header records the same plan), and Vitest's options.
 */
export function planRun(
  given: NodeJS.ProcessEnv,
  suites: readonly AnySuite[],
  extra: { runId?: string; simUrl?: string; filter?: string | null; sharded?: boolean } = {},
): RunPlan {
  // `--model registry:KEY` becomes the model the registry names before anything reads the model
  const { source, registry } = resolveRegistryModel(given);
  const run = readConfig(source);
  if (registry) run.provenance = { ...run.provenance, registry };
  const parsed: Record<string, SuiteSettings> = {};
  let prewarmSandbox = false;
  for (const s of suites) {
    try {
      const settings = s.settings(source, run);
      parsed[s.name] = { ok: true, settings, sampling: suiteSamplingPlan(s, run, settings) };
      prewarmSandbox ||= s.callsTools?.(settings) === true;
    } catch (err) {
      parsed[s.name] = { ok: false, error: (err as Error).message };
    }
  }
  return {
    runId: extra.runId ?? newRunId(),
    ownerPid: process.pid,
    run,
    suites: parsed,
    vitest: vitestOptionsOf(run),
    simUrl: extra.simUrl ?? run.simUrl,
    filter: extra.filter ?? null,
    sharded: extra.sharded ?? true,
    prewarmSandbox,
  };
}

/**
 * The plan of a run whose configuration a caller holds already as a value (the optimizer's task model, a test's
 * configuration): no suite settings of its own, no environment read.
 */
export function planFromConfig(run: RunConfig, extra: { runId?: string; simUrl?: string | undefined } = {}): RunPlan {
  return {
    runId: extra.runId ?? newRunId(),
    ownerPid: process.pid,
    run,
    suites: {},
    vitest: vitestOptionsOf(run),
    simUrl: extra.simUrl ?? run.simUrl,
    filter: null,
    sharded: false,
    prewarmSandbox: false,
  };
}

/**
 * The sampling plan of a suite in this run: the one the plan holds (built with its settings), or, for a suite the plan
 * does not know (a describeEval suite registers itself in the worker), the one its definition gives.
 */
export function samplingOf<S>(plan: RunPlan, def: SuiteOf<S>, settings: S): SamplingPlan {
  const s = plan.suites[def.name];
  return (s?.ok && s.sampling) || suiteSamplingPlan(def, plan.run, settings);
}

/**
 * A suite's settings from the plan, typed by its definition, or its error as an exception (a test file that cannot
 * load). The plan holds every suite's settings as the definition's own `settings` parsed them (sent to the workers as
 * one value): this is the one place that gives them their type back.
 */
export function settingsOf<S>(plan: RunPlan, def: Pick<SuiteOf<S>, 'name' | 'settings'>): S {
  const s = plan.suites[def.name];
  if (!s) throw new Error(`toolgauge: suite '${def.name}' has no settings in this run`);
  if (!s.ok) throw new Error(s.error);
  return s.settings as S;
}
