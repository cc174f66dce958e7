import { inject } from 'vitest';
import type { BlobRun } from '../kit/blob-run.ts';
import type { CarriedTrace } from '../kit/shard-traces.ts';
import { parseKitConfig, type KitConfig } from '../kit/config.ts';
import type { DatasetInfo, InstanceMetaBase } from '../kit/types.ts';

// Vitest re-exports @vitest/runner's TaskMeta; augmenting it through 'vitest' keeps to the one declared dependency.
declare module 'vitest' {
  export interface ProvidedContext {
    toolgauge: KitConfig;
  }
  interface TaskMeta {
    /** An instance's result (tests). */
    toolgauge?: InstanceMetaBase;
    /** The instance's trace file, carried in a shard's blob report for the merged report (harness/kit/shard-traces.ts). */
    toolgaugeTrace?: CarriedTrace;
    /** The instance's readable transcript (question, each tool call and result, answer), shown by the Vitest UI. */
    transcript?: string;
    /** The instance and trial a test runs (tests, set at collection). */
    toolgaugeInstance?: { id: string; trial: number };
    /** A suite block's identity (describe blocks): which suite, its dataset and output directory. */
    toolgaugeSuite?: { suite: string; title: string; dataset: DatasetInfo | null; outDir: string; run?: BlobRun };
  }
}

/**
 * The run's configuration in a worker: what the global setup parsed and provided. Without the global setup (a
 * user's own Vitest config without toolgauge's preset) the environment is parsed here instead — the worker is
 * then the edge — and no simulator is running, so an endpoint must be given.
 */
export function kitConfig(): KitConfig {
  const provided = inject('toolgauge');
  return provided ?? parseKitConfig(process.env, []);
}
