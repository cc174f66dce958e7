import type { RunConfig } from '../harness/core/config.ts';
import type { ReproHeader } from '../harness/core/repro.ts';
import type { MetricEstimate } from '../harness/stats/index.ts';
import type { Summary } from '../harness/report/summary.ts';
import type { InstanceMeta } from '../harness/vitest/meta.ts';
import { toolhopAggregator } from './toolhop.ts';

export type SuiteName = 'toolhop' | 'maze' | 'probe';

export interface Aggregate {
  counts: Record<string, number>;
  metrics: Record<string, MetricEstimate>;
  breakdowns: Record<string, Record<string, Record<string, MetricEstimate>>>;
  errors: Summary['errors'];
  extra: Record<string, unknown>;
  /** Harness errors among the instances (gates fail on any). */
  harnessErrors: number;
  instances: number;
}

export interface Chart {
  file: string;
  label: string;
  svg: string;
}

/**
 * How one suite turns its tests' meta into numbers and files. `aggregate` is pure (metas + seed), so the reporter,
 * `toolgauge report DIR` (from a saved instances.jsonl) and merged shard reports all compute the same thing.
 */
export interface SuiteAggregator {
  /** `config` is the run's (or the saved summary's) suite config, for aggregation options such as clustering. */
  aggregate(metas: InstanceMeta[], seed: number, config: Record<string, unknown>): Aggregate;
  /** Per-instance outcome of each metric, for paired comparisons between runs on the same instances. */
  outcomes(metas: InstanceMeta[]): Record<string, Map<string, number>>;
  config(cfg: RunConfig): Record<string, unknown>;
  dataset(cfg: RunConfig): Promise<ReproHeader['dataset']>;
  templateSha256?(cfg: RunConfig): string | null;
  outDir(cfg: RunConfig): string;
  markdown(summary: Summary): string;
  terminal(summary: Summary, outDir: string): string;
  charts(summary: Summary): Chart[];
  /** Suite-specific files written next to summary.json (Maze's per-complexity metrics reports). */
  writeExtra?(outDir: string, metas: InstanceMeta[], summary: Summary): void;
}

export const SUITE_AGGREGATORS: Partial<Record<SuiteName, SuiteAggregator>> = {
  toolhop: toolhopAggregator,
};

export function registerAggregator(name: SuiteName, agg: SuiteAggregator): void {
  SUITE_AGGREGATORS[name] = agg;
}
