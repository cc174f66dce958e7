// Several trials per instance. The unit of analysis is the instance: trials of one instance are averaged (or
// turned into pass@k / pass^k) per instance BEFORE any interval, so n counts instances, not trials — trials of one
// instance are correlated, and counting them as independent would shrink the CI falsely.

function assertTrialCounts(n: number, c: number, k: number, what: string): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${what}: n (trials) must be an integer ≥ 1, got ${n}`);
  if (!Number.isInteger(c) || c < 0 || c > n)
    throw new RangeError(`${what}: c (passes) must be an integer in [0, n], got ${c}`);
  if (!Number.isInteger(k) || k < 1 || k > n) throw new RangeError(`${what}: k must be an integer in [1, n], got ${k}`);
}

/** Mean of each instance's trials (each trial in [0, 1]). An instance with no trials is a bug upstream: throws. */
export function averageTrials(perInstance: ReadonlyMap<string, readonly number[]>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, trials] of perInstance) {
    if (trials.length === 0) throw new RangeError(`averageTrials: instance ${id} has no trials`);
    let s = 0;
    for (let i = 0; i < trials.length; i++) {
      const x = trials[i] as number;
      if (!(x >= 0 && x <= 1)) throw new RangeError(`averageTrials: instance ${id}, trial ${i}: ${x} is not in [0, 1]`);
      s += x;
    }
    out.set(id, s / trials.length);
  }
  return out;
}

/**
 * Unbiased pass@k of Chen et al. (2021) from n trials with c passes: 1 − C(n−c, k)/C(n, k), the probability that
 * at least one of k trials drawn without replacement passes. Computed as 1 − Π_{i=n−c+1..n}(1 − k/i), which never
 * forms a large binomial coefficient. pass@1 = c/n; 1 when n − c < k.
 */
export function passAtK(n: number, c: number, k: number): number {
  assertTrialCounts(n, c, k, 'passAtK');
  if (n - c < k) return 1;
  let prod = 1;
  for (let i = n - c + 1; i <= n; i++) prod *= 1 - k / i;
  return 1 - prod;
}

/**
 * pass^k = C(c, k)/C(n, k): the probability that k trials drawn without replacement all pass (a reliability
 * measure: the fraction of instances the model solves every time). Computed as Π_{i<k}(c − i)/(n − i).
 * pass^1 = c/n; 0 when c < k.
 */
export function passHatK(n: number, c: number, k: number): number {
  assertTrialCounts(n, c, k, 'passHatK');
  if (c < k) return 0;
  let prod = 1;
  for (let i = 0; i < k; i++) prod *= (c - i) / (n - i);
  return prod;
}

function perInstance(
  trials: ReadonlyMap<string, readonly number[]>,
  k: number,
  f: (n: number, c: number, k: number) => number,
  what: string,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, ts] of trials) {
    let c = 0;
    for (let i = 0; i < ts.length; i++) {
      const x = ts[i];
      if (x !== 0 && x !== 1) throw new RangeError(`${what}: instance ${id}, trial ${i}: ${x} is not 0 or 1`);
      c += x;
    }
    if (ts.length < k) throw new RangeError(`${what}: instance ${id} has ${ts.length} trials, fewer than k = ${k}`);
    out.set(id, f(ts.length, c, k));
  }
  return out;
}

/** pass@k of every instance from its 0/1 trials (each instance needs ≥ k trials). Feed the values to a CI. */
export function passAtKPerInstance(trials: ReadonlyMap<string, readonly number[]>, k: number): Map<string, number> {
  return perInstance(trials, k, passAtK, 'passAtKPerInstance');
}

/** pass^k of every instance from its 0/1 trials (each instance needs ≥ k trials). */
export function passHatKPerInstance(trials: ReadonlyMap<string, readonly number[]>, k: number): Map<string, number> {
  return perInstance(trials, k, passHatK, 'passHatKPerInstance');
}

function meanOf(m: ReadonlyMap<string, number>): number {
  if (m.size === 0) return NaN;
  let s = 0;
  for (const v of m.values()) s += v;
  return s / m.size;
}

/** pass@k averaged over instances (NaN with no instances). */
export function meanPassAtK(trials: ReadonlyMap<string, readonly number[]>, k: number): number {
  return meanOf(passAtKPerInstance(trials, k));
}

/** pass^k averaged over instances (NaN with no instances). */
export function meanPassHatK(trials: ReadonlyMap<string, readonly number[]>, k: number): number {
  return meanOf(passHatKPerInstance(trials, k));
}
