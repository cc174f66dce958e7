import {
  averageTrials,
  estimateRate,
  passAtKPerInstance,
  passHatKPerInstance,
  type MetricEstimate,
} from '../stats/index.ts';

/**
 * Shared aggregation: outcomes grouped per instance (one value per trial) → one estimate whose n counts instances.
 * Trials are averaged per instance before any interval (docs/statistics.md), so k trials never inflate n.
 */
export function groupTrials<T>(
  items: readonly T[],
  key: (t: T) => string,
  outcome: (t: T) => number,
): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const it of [...items].sort((a, b) => compareIds(key(a), key(b)))) {
    const k = key(it);
    const list = out.get(k) ?? [];
    list.push(outcome(it));
    out.set(k, list);
  }
  return out;
}

export function rateOf(
  trials: ReadonlyMap<string, readonly number[]>,
  denominator: string,
  seed: number,
): MetricEstimate {
  const perInstance = averageTrials(trials);
  return estimateRate([...perInstance.values()], { denominator, seed });
}

/**
 * `rateOf(groupTrials(items, key, outcome), …)` without the grouping: each instance's mean over its trials, in the
 * same order, straight into one array. At 10^5 instances the grouping's map of arrays and the map of means were
 * about 1 KiB an instance per metric, all garbage once the estimate was made, at the very end of a run when
 * Vitest's main process is at its largest.
 */
export function rateOfItems<T>(
  items: readonly T[],
  key: (t: T) => string,
  outcome: (t: T) => number,
  denominator: string,
  seed: number,
): MetricEstimate {
  return estimateRate(instanceMeans(items, key, outcome), { denominator, seed });
}

/** Each instance's mean outcome, instances in `compareIds` order (as `averageTrials(groupTrials(…))` gives them). */
export function instanceMeans<T>(items: readonly T[], key: (t: T) => string, outcome: (t: T) => number): number[] {
  let sorted = true;
  for (let i = 1; i < items.length && sorted; i++) sorted = compareIds(key(items[i - 1]!), key(items[i]!)) <= 0;
  const order = sorted ? items : [...items].sort((a, b) => compareIds(key(a), key(b)));
  const means: number[] = [];
  let current: string | undefined;
  let sum = 0;
  let count = 0;
  const close = () => {
    if (count) means.push(sum / count);
  };
  for (const it of order) {
    const k = key(it);
    if (k !== current) {
      close();
      current = k;
      sum = 0;
      count = 0;
    }
    const x = outcome(it);
    if (!(x >= 0 && x <= 1))
      throw new RangeError(`averageTrials: instance ${k}, trial ${count}: ${x} is not in [0, 1]`);
    sum += x;
    count++;
  }
  close();
  return means;
}

/** pass@k and pass^k over instances with k trials each (only when every instance has at least k trials). */
export function passMetrics(
  trials: ReadonlyMap<string, readonly number[]>,
  k: number,
  denominator: string,
  seed: number,
) {
  const at = passAtKPerInstance(trials, k);
  const hat = passHatKPerInstance(trials, k);
  return {
    [`pass@${k}`]: estimateRate([...at.values()], { denominator, seed, method: 'bootstrap' }),
    [`pass^${k}`]: estimateRate([...hat.values()], { denominator, seed, method: 'bootstrap' }),
  };
}

/** Instance ids sort numerically when both are numbers, so reports list 2 before 10. */
export function compareIds(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb) && a.trim() !== '' && b.trim() !== '')
    return na - nb || a.localeCompare(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** JSON cannot hold NaN; an undefined interval is written as null. */
export function jsonSafe(e: MetricEstimate): Record<string, unknown> {
  const fix = (x: number) => (Number.isFinite(x) ? round(x) : null);
  return { ...e, value: fix(e.value), lo: fix(e.lo), hi: fix(e.hi) };
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
