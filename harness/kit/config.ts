import { randomBytes } from 'node:crypto';
import { readConfig, type RunConfig } from '../core/config.ts';
import type { SandboxAddress } from '../sandbox/remote.ts';
import type { AnySuite, SuiteOf } from './types.ts';

/**
 * The configuration of one eval run, parsed once at the edge (the CLI or Vitest's global setup) and handed to the
 * workers with Vitest's provide/inject: the shared run settings, each suite's own settings (or the one-line error
 * its environment gave, raised only when that suite is run), the simulator's URL and Vitest's `-t` pattern.
 */
export interface KitConfig {
  runId: string;
  /**
   * The run's main process (where the configuration was parsed: the CLI, Vitest's global setup): it owns the output
   * directory's lock, which the run's workers join (harness/kit/lock.ts). Unset: the current process.
   */
  ownerPid?: number;
  run: RunConfig;
  suites: Record<string, SuiteSettings>;
  simUrl: string | undefined;
  /** A filtered run (`-t`) merges into the output directory instead of emptying it. */
  filter: string | null;
  /**
   * Vitest splits the run over shards (`--shard`): only then are a suite's instances dealt over its part files.
   * Unsharded, they all run in the first part (files of one worker run one after another, so a run dealt over four
   * files would wait for each file's slowest instance three times). Unknown (no global setup) counts as sharded.
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
}

export type SuiteSettings = { ok: true; settings: unknown } | { ok: false; error: string };

export function newRunId(now = new Date()): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
}

/**
 * The run id the toolgauge launcher (the CLI) chose, handed to Vitest's global setup in the same process. Only a value
 * marked with this very process's pid counts: one inherited from the environment (a shell, a parent run) would make
 * unrelated runs share a run id, and so join each other's output-directory lock (harness/kit/lock.ts).
 */
export function launcherRunId(env: NodeJS.ProcessEnv): string | undefined {
  return env.TOOLGAUGE_RUN_ID && env.TOOLGAUGE_RUN_ID_PID === String(process.pid) ? env.TOOLGAUGE_RUN_ID : undefined;
}

/** Name `runId` as this process's run for launcherRunId. */
export function markRunId(env: NodeJS.ProcessEnv, runId: string): void {
  env.TOOLGAUGE_RUN_ID = runId;
  env.TOOLGAUGE_RUN_ID_PID = String(process.pid);
}

export function parseKitConfig(
  env: NodeJS.ProcessEnv,
  suites: readonly AnySuite[],
  extra: { runId?: string; simUrl?: string; filter?: string | null; sharded?: boolean } = {},
): KitConfig {
  const run = readConfig(env);
  const parsed: Record<string, SuiteSettings> = {};
  let prewarmSandbox = false;
  for (const s of suites) {
    try {
      const settings = s.settings(env, run);
      parsed[s.name] = { ok: true, settings };
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
    simUrl: extra.simUrl ?? run.simUrl,
    filter: extra.filter ?? null,
    sharded: extra.sharded ?? true,
    prewarmSandbox,
  };
}

/**
 * A suite's settings from the run config, typed by its definition, or its error as an exception (a test file that
 * cannot load). The config holds every suite's settings as the definition's own `settings` parsed them (sent to the
 * workers as one value): this is the one place that gives them their type back.
 */
export function settingsOf<S>(kc: KitConfig, def: Pick<SuiteOf<S>, 'name' | 'settings'>): S {
  const s = kc.suites[def.name];
  if (!s) throw new Error(`toolgauge: suite '${def.name}' has no settings in this run`);
  if (!s.ok) throw new Error(s.error);
  return s.settings as S;
}
