import type { RunConfig } from '../harness/core/config.ts';
import type { Summary } from '../harness/report/summary.ts';
import type { InstanceMeta } from '../harness/vitest/meta.ts';
import { toolhopAggregator } from './toolhop.ts';

export type SuiteName = 'toolhop' | 'maze' | 'probe';

export interface BuiltSummary {
  summary: Summary;
  outDir: string;
  instances: number;
  harnessErrors: number;
}

/** How one suite turns its tests' meta into summary.json, report.md and a terminal summary. */
export interface SuiteAggregator {
  build(metas: InstanceMeta[], cfg: RunConfig, times: { startedAt: Date; endedAt: Date }): Promise<BuiltSummary>;
  markdown(summary: Summary): string;
  terminal(summary: Summary, outDir: string): string;
}

export const SUITE_AGGREGATORS: Partial<Record<SuiteName, SuiteAggregator>> & Record<'toolhop', SuiteAggregator> = {
  toolhop: toolhopAggregator,
};
