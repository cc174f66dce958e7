// Seeded, dependency-free randomness. Every random choice in toolgauge (bootstrap resamples, simulator coins,
// case shuffles, task generation) goes through these so a run is reproducible from its seed.

/** 32-bit FNV-1a hash of a string; used to derive independent seeds from names ("instance 17, agent 2"). */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Derive a seed from a base seed and any number of labels. */
export function deriveSeed(seed: number, ...labels: Array<string | number>): number {
  return hashString(`${seed >>> 0}|${labels.join('|')}`);
}

/** A small, fast PRNG (mulberry32) with helpers. Not cryptographic; reproducible across platforms. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /**
   * Σ values[this.int(values.length)] over `draws` draws: the same indices, sum and state afterwards as calling
   * int() that many times. next()'s steps are written out in one loop, which V8 optimizes early in a short-lived
   * process (a bootstrap draws millions of indices; one call per index stayed in slower tiers much longer).
   */
  sumOfDraws(values: ArrayLike<number>, draws: number): number {
    const n = values.length;
    let state = this.state;
    let sum = 0;
    for (let i = 0; i < draws; i++) {
      let t = (state = (state + 0x6d2b79f5) >>> 0);
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      sum += values[Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)] as number;
    }
    this.state = state;
    return sum;
  }
  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error('Rng.pick on an empty array');
    return xs[this.int(xs.length)] as T;
  }
  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(xs: readonly T[]): T[] {
    const out = xs.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }
}
