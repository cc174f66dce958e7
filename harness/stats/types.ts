// The one shape every report uses for a rate or mean with its uncertainty (docs/outputs.md: `metrics.<name>`).

export type EstimateMethod = 'bootstrap' | 'cluster_bootstrap' | 'wilson' | 'none';

export interface MetricEstimate {
  /** The point estimate (the plain mean / pooled rate of the data, never a bootstrap average). */
  value: number;
  /** Lower end of the interval (NaN when no interval could be computed). */
  lo: number;
  /** Upper end of the interval (NaN when no interval could be computed). */
  hi: number;
  /** How many things were counted in the denominator (instances, cases, …; never trials of one instance). */
  n: number;
  /** What was counted, in words, as given by the caller ("call-expected cases", "ToolHop rows", …). */
  denominator: string;
  /** How the interval was made; 'none' when there is no interval (e.g. n = 0). */
  method: EstimateMethod;
  /** Nominal coverage of [lo, hi], e.g. 0.95. */
  level: number;
  /** Seed of the resampling (bootstrap methods only), so the interval can be reproduced. */
  seed?: number;
  /** Number of bootstrap resamples (bootstrap methods only). */
  resamples?: number;
  /** Number of clusters resampled (cluster_bootstrap only); the effective sample size is at most this. */
  clusters?: number;
}

/** Options shared by the estimators. */
export interface EstimateOptions {
  /** What was counted (copied into `MetricEstimate.denominator`). */
  denominator: string;
  /** Bootstrap seed; default 0. */
  seed?: number;
  /** Bootstrap resamples; default 10_000. */
  resamples?: number;
  /** Interval level; default 0.95. */
  level?: number;
}

export const DEFAULT_RESAMPLES = 10_000;
export const DEFAULT_LEVEL = 0.95;
