import type { TestProject } from 'vitest/node';
import { prefetchGitState } from '../core/repro.ts';
import { launcherRunId, markRunId, parseKitConfig, type KitConfig } from '../kit/config.ts';
import { assertOutDirWritable } from '../kit/out-dir-check.ts';
import { sandboxOptionsOf } from '../kit/sandbox-options.ts';
import type { AnySuite } from '../kit/types.ts';
import type { Responder } from '../sim/server.ts';

// The endpoint check, the simulator and the sandbox load only when the run uses them (a describeEval run against
// an endpoint the CLI already checked needs none of them in this process).

/**
 * What an eval run needs before its workers start (main process, once): parse the configuration once, check a real
 * endpoint answers (seconds, with the URL and the cause — not a minute of retries per instance), or start the
 * simulator with each suite's responder. Returns the configuration to provide to the workers and what ends the run.
 */
export async function prepareEvalRun(
  suites: readonly AnySuite[],
  o: {
    filter: string | null;
    sharded: boolean;
    carryTraces?: boolean;
    /** The configuration the CLI parsed and checked (its run id holds the directory's lock); else parsed here. */
    kc?: KitConfig;
    /** The CLI checked the endpoint already. */
    endpointChecked?: boolean;
  },
): Promise<{ kc: KitConfig; close: () => Promise<void> }> {
  prefetchGitState();
  const kc = o.kc ? { ...o.kc, filter: o.filter, sharded: o.sharded } : parseHere(suites, o);
  if (o.carryTraces) kc.carryTraces = true;
  // Before the first request (the CLI checked already; plain `vitest run` is checked here): the run's out dir, or
  // `results/` under which each suite writes its own.
  assertOutDirWritable('toolgauge', kc.run.outDir ?? 'results');
  let close = async () => undefined as void;
  if (kc.run.engine && !kc.run.engine.facts && kc.run.cache !== 'replay') {
    // A gguf: model the CLI did not start an engine for (plain `vitest run`): start it (or ask the --base-url server) here.
    const { prepareRunEngine } = await import('../serve/run-engine.ts');
    const engine = (await prepareRunEngine(kc.run, 'toolgauge'))!;
    kc.run.baseUrl = engine.url;
    kc.run.engine.facts = engine.facts;
    close = () => engine.close();
  }
  if (kc.run.baseUrl) {
    // The CLI already checked; plain `vitest run` gets the same check here. Replay needs no endpoint.
    // `toolgauge eval` checked it before Vitest loaded this setup, and says so in this process's environment.
    const checked = o.endpointChecked ?? (!o.kc && process.env.TOOLGAUGE_PREFLIGHT_DONE === '1');
    if (!checked && kc.run.cache !== 'replay')
      await (await import('../model/preflight.ts')).checkEndpoint({
        baseUrl: kc.run.baseUrl,
        apiKey: kc.run.apiKey,
        model: kc.run.model,
      });
  }
  const suiteWantsSim = suites.some((s) => {
    const set = kc.suites[s.name];
    return set?.ok && s.needsSimulator?.(kc.run, set.settings);
  });
  if ((!kc.run.baseUrl || suiteWantsSim) && !kc.simUrl) {
    const responders: Record<string, Responder> = {};
    for (const s of suites) {
      const set = kc.suites[s.name];
      if (set?.ok && s.responder) responders[s.name] = s.responder(kc.run, set.settings);
    }
    const { startSimServer } = await import('../sim/server.ts');
    const sim = await startSimServer({ responders });
    kc.simUrl = sim.url;
    const closeEngine = close;
    close = async () => {
      await sim.close();
      await closeEngine();
    };
  }
  if (kc.prewarmSandbox) {
    // The sandbox boots now, in this process, while Vitest starts the test worker and the worker loads the suite; the
    // worker calls it over a socket. A pool the worker started itself would begin booting only after all that.
    const [{ createSandbox }, { serveSandbox }] = await Promise.all([
      import('../sandbox/index.ts'),
      import('../sandbox/remote.ts'),
    ]);
    const pool = createSandbox(sandboxOptionsOf(kc.run));
    void pool.warm().catch(() => undefined); // a worker that cannot start fails the first call, with its reason
    try {
      const server = await serveSandbox(pool);
      kc.sandboxSocket = { path: server.path, token: server.token };
      const closeSim = close;
      close = async () => {
        await server.close();
        await pool.close();
        await closeSim();
      };
    } catch {
      // No socket here (a read-only temporary folder, or no folder with a short enough path): the test worker starts
      // a pool of its own, as it would anyway.
      await pool.close();
    }
  }
  return { kc, close };
}

/** Under plain `vitest run` (the global setup is the edge): the configuration from the environment. */
function parseHere(suites: readonly AnySuite[], o: { filter: string | null; sharded: boolean }): KitConfig {
  // The CLI's run id (it holds the directory's lock under it), never one inherited from the environment.
  const runId = launcherRunId(process.env);
  const kc = parseKitConfig(process.env, suites, { ...(runId ? { runId } : {}), filter: o.filter, sharded: o.sharded });
  markRunId(process.env, kc.runId);
  return kc;
}

/** The eval run's global setup (`globalSetup` file): prepareEvalRun, then provide the configuration to the workers. */
export function createGlobalSetup(suites: readonly AnySuite[]) {
  return async function setup(project: TestProject) {
    const pattern = project.vitest.config.testNamePattern;
    const carryTraces = (project.vitest.config.reporters as unknown[]).some(
      (r) => (Array.isArray(r) ? r[0] : r) === 'blob',
    );
    const { kc, close } = await prepareEvalRun(suites, {
      filter: pattern ? String(pattern) : null,
      sharded: project.vitest.config.shard !== undefined,
      carryTraces,
    });
    project.provide('toolgauge', kc);
    return close;
  };
}
