import { reproHeader } from '../core/repro.ts';
import { finalizeSuite, type Finalized } from '../kit/finalize.ts';
import { journalOutside } from '../kit/journal.ts';
import { releaseDirLock } from '../kit/lock.ts';
import { planRun, settingsOf, type RunPlan } from '../kit/plan.ts';
import { createRuntime } from '../kit/runtime.ts';
import { generationHeader } from '../kit/sampling.ts';
import { SuiteSession } from '../kit/session.ts';
import type { InstanceMetaBase, SuiteDefinition } from '../kit/types.ts';
import { openRun } from './open-run.ts';

export interface InProcessRun<M extends InstanceMetaBase> {
  metas: M[];
  outDir: string;
  finalized: Finalized;
}

/**
 * Run a suite in this process, without Vitest: the same plan, launcher (harness/launch/open-run.ts), sessions, files,
 * journal and finalize step as a Vitest run (so the same numbers). For programs that embed toolgauge and for tests
 * that check numbers rather than the CLI. `source`: the run's settings as variables (the environment, or a caller's
 * own values), or a plan built already (`planRun`).
 */
export async function runSuite<I extends { id: string }, M extends InstanceMetaBase, S>(
  def: SuiteDefinition<I, M, S>,
  source: NodeJS.ProcessEnv | RunPlan,
  o: { concurrency?: number; runId?: string } = {},
): Promise<InProcessRun<M>> {
  const started = new Date();
  const planned = isPlan(source) ? source : planRun(source, [def], o.runId ? { runId: o.runId } : {});
  const settings = settingsOf(planned, def);
  const { plan, close } = await openRun(planned, {
    command: 'toolgauge',
    suites: [def],
    outDir: def.outDir(planned.run, settings),
    // an in-process caller's endpoint is its own business: no check beyond the first request's
    endpointChecked: true,
  });
  const closers: Array<() => Promise<void>> = [close];
  if (def.close) closers.push(() => def.close!());
  try {
    const loaded = await def.load(plan.run, settings);
    const runtime = createRuntime(plan.run, plan.simUrl);
    closers.push(() => runtime.close());
    const session = new SuiteSession(def, plan, settings, runtime, loaded.instances, loaded.dataset);
    // The session takes the output directory's lock with the first instance; this run gives it back at its end.
    closers.push(async () => releaseDirLock(session.outDir, plan.runId));
    const jobs = loaded.instances.flatMap((inst) =>
      Array.from({ length: plan.run.trials }, (_, trial) => ({ inst, trial })),
    );
    const metas: M[] = new Array(jobs.length);
    let next = 0;
    const worker = async () => {
      for (let j = next++; j < jobs.length; j = next++)
        metas[j] = (await session.runOne(jobs[j]!.inst, jobs[j]!.trial)).meta;
    };
    await Promise.all(Array.from({ length: Math.max(1, o.concurrency ?? plan.run.concurrency) }, worker));
    const header = reproHeader(plan.run, {
      dataset: loaded.dataset,
      templateSha256: def.templateSha256?.(plan.run, settings) ?? null,
      generation: generationHeader(session.samplingPlan, def.generationFacts?.(plan.run, settings)),
      startedAt: started,
      endedAt: new Date(),
    });
    const finalized = finalizeSuite(def.name, def.aggregator, metas, {
      header,
      config: def.config(plan.run, settings),
      seed: plan.run.seed,
      gate: plan.run.gate,
      outDir: session.outDir,
      recordFiles: def.recordFiles,
      // As the reporter's run end does: a resume of fewer instances keeps the others the directory finished.
      ...(plan.run.resume
        ? { keepInJournal: (inRun: (key: string) => boolean) => journalOutside(session.outDir, def.name, inRun) }
        : {}),
    });
    return { metas, outDir: session.outDir, finalized };
  } finally {
    for (const c of closers.reverse()) await c();
  }
}

const isPlan = (x: NodeJS.ProcessEnv | RunPlan): x is RunPlan =>
  typeof (x as RunPlan).runId === 'string' && typeof (x as RunPlan).run === 'object';
