// Paired bootstrap of the difference of two pooled ratios measured on the same units: PRR_B − PRR_A, where each
// model's PRR is Σ(hit ∧ pass) / Σhit over the same task × mode runs. Resampling a unit draws it for both models
// at once, so what the two share (an easy task is easy for both) cancels out of the interval.

import { Rng, deriveSeed } from '../core/rng.ts';
import { bootstrapSettings } from './describe.ts';
import { indexDigits, percentileInterval } from './resample.ts';

export interface RatioUnit {
  num: number;
  den: number;
}

export interface PairedRatioDifference {
  /** Units present in both (the only ones used); units only in one are counted, not used. */
  n: number;
  onlyInA: number;
  onlyInB: number;
  /** Σnum / Σden over the shared units (NaN when Σden = 0). */
  valueA: number;
  valueB: number;
  /** valueB − valueA. */
  diff: number;
  /** Percentile-bootstrap CI of the difference; NaN when fewer than 2 units or no resample has both ratios. */
  lo: number;
  hi: number;
  level: number;
  seed: number;
  resamples: number;
  /** Resamples in which one model had no denominator (no hit): dropped from the interval. */
  dropped: number;
}

const TWO32 = 4294967296;

export function pairedRatioDifference(
  a: ReadonlyMap<string, RatioUnit>,
  b: ReadonlyMap<string, RatioUnit>,
  opts: { seed?: number; resamples?: number; level?: number } = {},
): PairedRatioDifference {
  const { level, resamples, seed } = bootstrapSettings(opts, 'pairedRatioDifference');
  const ids = [...a.keys()].filter((id) => b.has(id)).sort();
  const n = ids.length;
  const an = ids.map((id) => a.get(id)!.num);
  const ad = ids.map((id) => a.get(id)!.den);
  const bn = ids.map((id) => b.get(id)!.num);
  const bd = ids.map((id) => b.get(id)!.den);
  for (const [xs, what] of [
    [an, 'A num'],
    [ad, 'A den'],
    [bn, 'B num'],
    [bd, 'B den'],
  ] as const) {
    if (xs.some((x) => !(Number.isFinite(x) && x >= 0)))
      throw new RangeError(`pairedRatioDifference: ${what}: every value must be a finite number ≥ 0`);
  }
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const ratio = (num: number, den: number) => (den === 0 ? NaN : num / den);
  const valueA = ratio(sum(an), sum(ad));
  const valueB = ratio(sum(bn), sum(bd));
  const base = {
    n,
    onlyInA: a.size - n,
    onlyInB: b.size - n,
    valueA,
    valueB,
    diff: valueB - valueA,
    level,
    seed,
    resamples,
  };
  if (n < 2 || !Number.isFinite(valueA) || !Number.isFinite(valueB)) return { ...base, lo: NaN, hi: NaN, dropped: 0 };
  const rng = new Rng(deriveSeed(seed, 'paired-ratio-bootstrap'));
  const { digits, limit } = indexDigits(n);
  const stats: number[] = [];
  let dropped = 0;
  for (let r = 0; r < resamples; r++) {
    let sa = 0;
    let ca = 0;
    let sb = 0;
    let cb = 0;
    let i = 0;
    while (i < n) {
      let x = rng.next() * TWO32;
      if (x >= limit) continue;
      for (let d = 0; d < digits && i < n; d++, i++) {
        const q = Math.floor(x / n);
        const j = x - q * n;
        sa += an[j]!;
        ca += ad[j]!;
        sb += bn[j]!;
        cb += bd[j]!;
        x = q;
      }
    }
    if (ca === 0 || cb === 0) dropped++;
    else stats.push(sb / cb - sa / ca);
  }
  if (!stats.length) return { ...base, lo: NaN, hi: NaN, dropped };
  const { lo, hi } = percentileInterval(Float64Array.from(stats), level);
  return { ...base, lo, hi, dropped };
}
