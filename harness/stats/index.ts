// harness/stats: the statistics behind every number toolgauge reports. Pure functions, no I/O; all randomness is
// seeded through harness/core/rng.ts.

export type { EstimateMethod, EstimateOptions, MetricEstimate } from './types.ts';
export { DEFAULT_LEVEL, DEFAULT_RESAMPLES } from './types.ts';
export { mean, quantile, formatEstimate, isBinary } from './describe.ts';
export { bootstrapRate, emptyEstimate } from './bootstrap.ts';
export { clusterBootstrapRate } from './cluster.ts';
export { ratioEstimate } from './ratio.ts';
export {
  cohenKappa,
  confusionTable,
  kappaEstimate,
  kappaOfCounts,
  type ConfusionTable,
  type KappaEstimate,
} from './kappa.ts';
export { wilsonInterval } from './wilson.ts';
export { estimateRate, DEFAULT_SMALL_N, DEFAULT_MIN_EACH, type EstimateRateOptions } from './estimate.ts';
export {
  averageTrials,
  passAtK,
  passHatK,
  passAtKPerInstance,
  passHatKPerInstance,
  meanPassAtK,
  meanPassHatK,
} from './trials.ts';
export { exactBinomialTwoSided } from './binomial.ts';
export { holm } from './holm.ts';
export {
  pairedCompare,
  compareMany,
  verdictOf,
  signFlipPValue,
  type PairedOptions,
  type PairedComparison,
  type McNemar,
  type Verdict,
} from './paired.ts';
export { normalQuantile } from './special.ts';
export { pairedRatioDifference, type PairedRatioDifference, type RatioUnit } from './paired-ratio.ts';
export { disjointCiRule, rulesAgree, type DisjointCiRule, type DisjointVerdict } from './disjoint-ci.ts';
