// Toolhound's credibility rule, kept beside toolgauge's paired test so a reader can see where the two disagree
// (docs/statistics.md, "Toolhound's rule beside the paired test"). It is reported, never the verdict.

import { Rng, deriveSeed } from '../core/rng.ts';
import { bootstrapSettings } from './describe.ts';
import { bootstrapMeans, percentileInterval } from './resample.ts';

export type DisjointVerdict = 'credible gain' | 'credible harm' | 'no credible change';

export interface DisjointCiRule {
  /** Each run's own percentile-bootstrap CI of its mean, on the instances both ran (NaN bounds when n < 2). */
  a: { mean: number; lo: number; hi: number };
  b: { mean: number; lo: number; hi: number };
  n: number;
  /** The two intervals share no point. */
  disjoint: boolean;
  /** Toolhound's reading: a gain when B's interval lies wholly above A's, a harm when wholly below. */
  verdict: DisjointVerdict;
  level: number;
  seed: number;
  resamples: number;
}

/**
 * Toolhound's rule: two models differ credibly when their bootstrap CIs are disjoint. Each run's mean gets its own
 * (unpaired) percentile bootstrap at `level`, over the instances both runs have — the same instances the paired
 * test uses, so the two rules differ only in how they read the evidence, not in the data. Seeded per side.
 */
export function disjointCiRule(
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
  opts: { seed?: number; resamples?: number; level?: number } = {},
): DisjointCiRule {
  const { level, resamples, seed } = bootstrapSettings(opts, 'disjointCiRule');
  const ids = [...a.keys()].filter((id) => b.has(id)).sort();
  const side = (m: ReadonlyMap<string, number>, tag: string) => {
    const xs = Float64Array.from(ids.map((id) => m.get(id) as number)).sort();
    if (xs.length === 0) return { mean: NaN, lo: NaN, hi: NaN };
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    if (xs.length < 2) return { mean, lo: NaN, hi: NaN };
    const stats = bootstrapMeans(xs, resamples, new Rng(deriveSeed(seed, tag)));
    return { mean, ...percentileInterval(stats, level) };
  };
  const sa = side(a, 'disjoint-ci-a');
  const sb = side(b, 'disjoint-ci-b');
  const verdict: DisjointVerdict =
    sb.lo > sa.hi ? 'credible gain' : sb.hi < sa.lo ? 'credible harm' : 'no credible change';
  return { a: sa, b: sb, n: ids.length, disjoint: verdict !== 'no credible change', verdict, level, seed, resamples };
}

/** The sign of the difference a verdict speaks of: +1 a credible rise, −1 a credible fall, 0 none. */
const SIGN: Record<string, number> = {
  'credible gain': 1,
  'credible rise (worse)': 1,
  'credible harm': -1,
  'credible fall (improved)': -1,
};

/**
 * Whether the paired verdict and Toolhound's say the same thing: both credible in the same direction, or neither.
 * The lower-is-better wording only renames a rise or fall, so the two are compared by the sign they speak of.
 */
export function rulesAgree(paired: string, disjoint: DisjointVerdict): boolean {
  return (SIGN[paired] ?? 0) === (SIGN[disjoint] ?? 0);
}
