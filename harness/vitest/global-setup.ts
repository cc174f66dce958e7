import type { TestProject } from 'vitest/node';
import { UsageError } from '../core/errors.ts';
import { FileRefused } from '../core/nofollow.ts';
import { redact } from '../core/redact.ts';
import { openRun } from '../launch/open-run.ts';
import { launcherRunId, markRunId, planRun, type RunPlan } from '../kit/plan.ts';
import type { AnySuite } from '../kit/types.ts';

/**
 * What an eval run needs before its workers start, under plain `vitest run` (main process, once): the run's plan,
 * built here from the environment (this is the edge) and opened by the launcher (harness/launch/open-run.ts: out-dir
 * check, engine, endpoint check, simulator, sandbox). Returns the plan to provide to the workers and what ends the run.
 */
export async function prepareEvalRun(
  suites: readonly AnySuite[],
  o: { filter: string | null; sharded: boolean; carryTraces?: boolean },
): Promise<{ plan: RunPlan; close: () => Promise<void> }> {
  const plan = planHere(suites, o);
  if (o.carryTraces) plan.carryTraces = true;
  // the run's out dir, or `results/` under which each suite writes its own
  const opened = await openRun(plan, {
    command: 'toolgauge',
    suites,
    outDir: plan.run.outDir ?? 'results',
    serveSandbox: true,
  });
  return { plan: opened.plan, close: opened.close };
}

/** Under plain `vitest run` (the global setup is the edge): the plan from the environment. */
function planHere(suites: readonly AnySuite[], o: { filter: string | null; sharded: boolean }): RunPlan {
  // The run id this process's earlier setup chose (a re-run under `vitest --ui`), never one inherited from the
  // environment.
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
    let prepared: Awaited<ReturnType<typeof prepareEvalRun>>;
    try {
      prepared = await prepareEvalRun(suites, {
        filter: pattern ? String(pattern) : null,
        sharded: project.vitest.config.shard !== undefined,
        carryTraces,
      });
    } catch (err) {
      if (!(err instanceof UsageError || err instanceof FileRefused)) throw err;
      exitOnUsageError(err);
    }
    project.provide('toolgauge', prepared.plan);
    return prepared.close;
  };
}

/**
 * A usage or configuration error found before the run (a bad setting, an endpoint that does not answer, an output
 * directory refused): one line and exit code 2, as `toolgauge eval` does, where Vitest would print a stack and exit 1.
 * Nothing has run yet: the launcher closed what it had opened.
 */
function exitOnUsageError(err: Error): never {
  process.stderr.write(`${redact(err.message)}\n`);
  process.exit(2);
}
