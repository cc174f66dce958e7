// What toolgauge adds to Vitest's types: the configuration the global setup provides to the workers, and the meta
// of tests and suite blocks. Types only, so that a module which needs them (the reporter, in Vitest's main process)
// does not load Vitest's test runner with them.
import type { BlobRun } from '../kit/blob-run.ts';
import type { CarriedTrace } from '../kit/shard-traces.ts';
import type { Fingerprint } from '../kit/fingerprint.ts';
import type { RunPlan } from '../kit/plan.ts';
import type { DatasetInfo, InstanceMetaBase } from '../kit/types.ts';

// Vitest re-exports @vitest/runner's TaskMeta; augmenting it through 'vitest' keeps to the one declared dependency.
declare module 'vitest' {
  export interface ProvidedContext {
    toolgauge: RunPlan;
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
    toolgaugeSuite?: {
      suite: string;
      title: string;
      dataset: DatasetInfo | null;
      outDir: string;
      run?: BlobRun;
      /** The run's fingerprint, in a shard's blob report: the merge stores it as the run's run.json. */
      fingerprint?: Fingerprint | undefined;
    };
  }
}
