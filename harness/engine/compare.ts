// How far one model's next-token distributions are from another's on the same teacher-forced text (e.g. a
// quantized file against its F32 original): top-1 agreement and KL(reference ‖ other) per step. Pure; the probe's
// quantization damage (harness/probe/axes/quant-damage.ts) uses the same step measure.
import type { DistributionsResult } from './types.ts';

export interface DistributionComparison {
  steps: number;
  /** Share of steps where both models rank the same token first. */
  top1Agreement: number;
  /** Mean over steps of KL(reference ‖ other), in nats. */
  meanKl: number;
  maxKl: number;
  /** True when a step lacked full distributions: its KL is then a lower bound from the top-K lists (see stepDamage). */
  approximate: boolean;
}

/** One teacher-forced step: the most likely tokens (most likely first) and, when available, every token's logprob. */
export interface StepDistribution {
  top: ReadonlyArray<{ token: number; logprob: number }>;
  full?: readonly number[];
}

export interface StepDamage {
  agree: 0 | 1;
  kl: number;
  exact: boolean;
}

function argmax(xs: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i]! > xs[best]!) best = i;
  return best;
}

/** KL(p ‖ q) of two log-probability vectors over the same outcomes (terms with p = 0 vanish). */
export function klFromLogprobs(lp: readonly number[], lq: readonly number[]): number {
  if (lp.length !== lq.length) throw new Error(`klFromLogprobs: ${lp.length} vs ${lq.length} outcomes`);
  let kl = 0;
  for (let i = 0; i < lp.length; i++) {
    const p = Math.exp(lp[i]!);
    if (p > 0) kl += p * (lp[i]! - lq[i]!);
  }
  // rounding can leave a tiny negative sum for identical distributions
  return Math.max(0, kl);
}

/** Renormalized log-probabilities (a distribution read back from a server may not sum to exactly 1). */
function normalized(lp: readonly number[]): number[] {
  const m = Math.max(...lp);
  const z = m + Math.log(lp.reduce((s, x) => s + Math.exp(x - m), 0));
  return lp.map((x) => x - z);
}

/**
 * One step's top-1 agreement and KL(ref ‖ quant). With full distributions the KL is exact; with top-K lists only,
 * both are coarsened to the tokens both lists hold plus one "everything else" bucket, whose KL never exceeds the
 * true one (data processing): a lower bound, marked `exact: false`.
 */
export function stepDamage(ref: StepDistribution, quant: StepDistribution): StepDamage {
  if (ref.full && quant.full) {
    const p = normalized(ref.full);
    const q = normalized(quant.full);
    return { agree: argmax(p) === argmax(q) ? 1 : 0, kl: klFromLogprobs(p, q), exact: true };
  }
  const agree =
    ref.top[0] !== undefined && quant.top[0] !== undefined && ref.top[0].token === quant.top[0].token ? 1 : 0;
  const qOf = new Map(quant.top.map((t) => [t.token, t.logprob]));
  const shared = ref.top.filter((t) => qOf.has(t.token));
  const lp = shared.map((t) => t.logprob);
  const lq = shared.map((t) => qOf.get(t.token)!);
  const rest = (xs: number[]) => Math.log(Math.max(1e-300, 1 - xs.reduce((s, x) => s + Math.exp(x), 0)));
  return { agree, kl: klFromLogprobs([...lp, rest(lp)], [...lq, rest(lq)]), exact: false };
}

export function compareDistributions(
  reference: DistributionsResult,
  other: DistributionsResult,
): DistributionComparison {
  if (reference.steps.length !== other.steps.length || reference.tokens.some((t, i) => other.tokens[i] !== t)) {
    throw new Error('compareDistributions: the two results are not over the same tokens (tokenizers or texts differ)');
  }
  let agree = 0;
  let total = 0;
  let max = 0;
  let approximate = false;
  reference.steps.forEach((p, i) => {
    const k = stepDamage(p, other.steps[i]!);
    agree += k.agree;
    approximate ||= !k.exact;
    total += k.kl;
    max = Math.max(max, k.kl);
  });
  const n = reference.steps.length;
  return { steps: n, top1Agreement: n ? agree / n : 0, meanKl: n ? total / n : 0, maxKl: max, approximate };
}
