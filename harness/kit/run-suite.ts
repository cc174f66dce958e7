import { reproHeader } from '../core/repro.ts';
import { startSimServer, type Responder } from '../sim/server.ts';
import { parseKitConfig, settingsOf, type KitConfig } from './config.ts';
import { finalizeSuite, type Finalized } from './finalize.ts';
import { releaseDirLock } from './lock.ts';
import { createRuntime } from './runtime.ts';
import { generationHeader } from './sampling.ts';
import { SuiteSession } from './session.ts';
import type { InstanceMetaBase, SuiteDefinition } from './types.ts';

export interface InProcessRun<M extends InstanceMetaBase> {
  metas: M[];
  outDir: string;
  finalized: Finalized;
}

/**
 * Run a suite in this process, without Vitest: the same sessions, files, journal and finalize step as a Vitest run
 * (so the same numbers), with the simulator started here when no endpoint is configured. For programs that embed
 * toolgauge (the optimizer evaluates candidates this way) and for tests that check numbers rather than the CLI.
 */
export async function runSuite<I extends { id: string }, M extends InstanceMetaBase, S>(
  def: SuiteDefinition<I, M, S>,
  env: NodeJS.ProcessEnv,
  o: { concurrency?: number; runId?: string } = {},
): Promise<InProcessRun<M>> {
  const started = new Date();
  const kc: KitConfig = parseKitConfig(env, [def], o.runId ? { runId: o.runId } : {});
  const settings = settingsOf(kc, def);
  const closers: Array<() => Promise<void>> = [];
  if (kc.run.engine && !kc.run.engine.facts) {
    const { prepareRunEngine } = await import('../serve/run-engine.ts');
    const engine = (await prepareRunEngine(kc.run, 'toolgauge'))!;
    kc.run.baseUrl = engine.url;
    kc.run.engine.facts = engine.facts;
    closers.push(() => engine.close());
  }
  if ((!kc.run.baseUrl || def.needsSimulator?.(kc.run, settings)) && !kc.simUrl) {
    const responders: Record<string, Responder> = def.responder ? { [def.name]: def.responder(kc.run, settings) } : {};
    const sim = await startSimServer({ responders });
    kc.simUrl = sim.url;
    closers.push(() => sim.close());
  }
  try {
    const loaded = await def.load(kc.run, settings);
    const runtime = createRuntime(kc.run, kc.simUrl);
    closers.push(() => runtime.close());
    const session = new SuiteSession(def, kc, settings, runtime, loaded.instances, loaded.dataset);
    // The session takes the output directory's lock with the first instance; this run gives it back at its end.
    closers.push(async () => releaseDirLock(session.outDir, kc.runId));
    const jobs = loaded.instances.flatMap((inst) =>
      Array.from({ length: kc.run.trials }, (_, trial) => ({ inst, trial })),
    );
    const metas: M[] = new Array(jobs.length);
    let next = 0;
    const worker = async () => {
      for (let j = next++; j < jobs.length; j = next++)
        metas[j] = (await session.runOne(jobs[j]!.inst, jobs[j]!.trial)).meta;
    };
    await Promise.all(Array.from({ length: Math.max(1, o.concurrency ?? kc.run.concurrency) }, worker));
    const header = reproHeader(kc.run, {
      dataset: loaded.dataset,
      templateSha256: def.templateSha256?.(kc.run, settings) ?? null,
      generation: generationHeader(session.samplingPlan, def.generationFacts?.(kc.run, settings)),
      startedAt: started,
      endedAt: new Date(),
    });
    const finalized = finalizeSuite(def.name, def.aggregator, metas, {
      header,
      config: def.config(kc.run, settings),
      seed: kc.run.seed,
      gate: kc.run.gate,
      outDir: session.outDir,
      recordFiles: def.recordFiles,
    });
    return { metas, outDir: session.outDir, finalized };
  } finally {
    for (const close of closers.reverse()) await close();
  }
}
