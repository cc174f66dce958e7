import type { TestProject } from 'vitest/node';
import type { OpenRunOptions } from '../launch/open-run.ts';
import { openRun } from '../launch/open-run.ts';
import { launcherRunId, markRunId, planRun, type RunPlan } from '../kit/plan.ts';
import type { AnySuite } from '../kit/types.ts';

/**
 * What an eval run needs before its workers start (main process, once): the run's plan, opened by the launcher
 * (harness/launch/open-run.ts: out-dir check, engine, endpoint check, simulator, sandbox). With `plan`, a launcher
 * that built and opened the plan already hands it over (the CLI); without, this is the edge (plain `vitest run`) and
 * the plan is built here from the environment. Returns the plan to provide to the workers and what ends the run.
 */
export async function prepareEvalRun(
  suites: readonly AnySuite[],
  o: {
    filter: string | null;
    sharded: boolean;
    carryTraces?: boolean;
    /** The plan the CLI built and checked (its run id holds the directory's lock); else built here. */
    plan?: RunPlan;
    /** The CLI checked the endpoint already. */
    endpointChecked?: boolean;
  } & Partial<Pick<OpenRunOptions, 'serveSandbox'>>,
): Promise<{ plan: RunPlan; close: () => Promise<void> }> {
  const base = o.plan ? { ...o.plan, filter: o.filter, sharded: o.sharded } : planHere(suites, o);
  if (o.carryTraces) base.carryTraces = true;
  const opened = await openRun(base, {
    command: 'toolgauge',
    suites,
    // the run's out dir, or `results/` under which each suite writes its own
    outDir: base.run.outDir ?? 'results',
    endpointChecked: o.endpointChecked ?? false,
    serveSandbox: o.serveSandbox ?? true,
  });
  return { plan: opened.plan, close: opened.close };
}

/** Under plain `vitest run` (the global setup is the edge): the plan from the environment. */
function planHere(suites: readonly AnySuite[], o: { filter: string | null; sharded: boolean }): RunPlan {
  // The CLI's run id (it holds the directory's lock under it), never one inherited from the environment.
  const runId = launcherRunId(process.env);
  const plan = planRun(process.env, suites, { ...(runId ? { runId } : {}), filter: o.filter, sharded: o.sharded });
  markRunId(process.env, plan.runId);
  return plan;
}

/**
 * The eval run's global setup (`globalSetup` file): prepareEvalRun, then provide the plan to the workers. A launcher
 * that opened the run itself (`toolgauge eval`) provides its plan in the configuration: then there is nothing to do.
 */
export function createGlobalSetup(suites: readonly AnySuite[]) {
  return async function setup(project: TestProject) {
    if (project.getProvidedContext().toolgauge) return;
    const pattern = project.vitest.config.testNamePattern;
    const carryTraces = (project.vitest.config.reporters as unknown[]).some(
      (r) => (Array.isArray(r) ? r[0] : r) === 'blob',
    );
    const { plan, close } = await prepareEvalRun(suites, {
      filter: pattern ? String(pattern) : null,
      sharded: project.vitest.config.shard !== undefined,
      carryTraces,
    });
    project.provide('toolgauge', plan);
    return close;
  };
}
