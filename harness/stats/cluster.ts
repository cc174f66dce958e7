// Cluster bootstrap: when outcomes come in correlated groups (a probe case family, a ToolHop domain, the tasks of
// one maze graph), resampling items pretends there is more independent information than there is. Resampling
// whole clusters keeps the within-cluster correlation, so the interval widens as it should.

import { Rng, deriveSeed } from '../core/rng.ts';
import { emptyEstimate } from './bootstrap.ts';
import { assertUnitInterval, bootstrapSettings } from './describe.ts';
import { percentileInterval, resampleRatios } from './resample.ts';
import type { EstimateOptions, MetricEstimate } from './types.ts';

/**
 * Percentile CI of the pooled rate Σoutcomes / #items, resampling clusters with replacement (each draw brings all
 * of that cluster's items). `value` is the plain mean of all items, `n` the number of items and `clusters` the
 * number of clusters. Clusters are visited in sorted-key order, so the result does not depend on item order.
 * Fewer than 2 clusters → no interval (NaN bounds, method 'none'): one cluster carries no between-cluster spread.
 * With G clusters the interval rests on G units, however many items they hold — trust it less when G is small.
 */
export function clusterBootstrapRate(
  outcomes: readonly number[],
  clusters: readonly string[],
  opts: EstimateOptions,
): MetricEstimate {
  const { level, resamples, seed } = bootstrapSettings(opts, 'clusterBootstrapRate');
  assertUnitInterval(outcomes, 'clusterBootstrapRate');
  if (outcomes.length !== clusters.length) {
    throw new RangeError(
      `clusterBootstrapRate: ${outcomes.length} outcomes but ${clusters.length} cluster labels (one per outcome)`,
    );
  }
  const n = outcomes.length;
  const denominator = opts.denominator;
  if (n === 0) return { ...emptyEstimate(denominator, level), clusters: 0 };

  const byCluster = new Map<string, { sum: number; count: number }>();
  let total = 0;
  for (let i = 0; i < n; i++) {
    const key = clusters[i] as string;
    const x = outcomes[i] as number;
    total += x;
    const c = byCluster.get(key);
    if (c) {
      c.sum += x;
      c.count += 1;
    } else byCluster.set(key, { sum: x, count: 1 });
  }
  const keys = [...byCluster.keys()].sort();
  const g = keys.length;
  const value = total / n;
  if (g < 2) return { value, lo: NaN, hi: NaN, n, denominator, method: 'none', level, clusters: g };

  const sums = new Float64Array(g);
  const counts = new Float64Array(g);
  keys.forEach((k, j) => {
    const c = byCluster.get(k) as { sum: number; count: number };
    sums[j] = c.sum;
    counts[j] = c.count;
  });
  const stats = resampleRatios(sums, counts, resamples, new Rng(deriveSeed(seed, 'cluster-bootstrap-rate')));
  const { lo, hi } = percentileInterval(stats, level);
  return { value, lo, hi, n, denominator, method: 'cluster_bootstrap', level, seed, resamples, clusters: g };
}
