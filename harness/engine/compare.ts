// How far one model's next-token distributions are from another's on the same teacher-forced text (e.g. a
// quantized file against its F32 original): top-1 agreement and KL(reference ‖ other) per step.
import type { DistributionsResult, DistributionStep } from './types.ts';

export interface DistributionComparison {
  steps: number;
  /** Share of steps where both models rank the same token first. */
  top1Agreement: number;
  /** Mean over steps of KL(reference ‖ other), in nats. */
  meanKl: number;
  maxKl: number;
  /** True when a step lacked full distributions: KL is then taken over the reference's top tokens only. */
  approximate: boolean;
}

/** KL(p ‖ q) of one step, from full distributions when both have them, else over p's top-k (renormalized). */
export function stepKl(p: DistributionStep, q: DistributionStep): { kl: number; approximate: boolean } {
  if (p.full && q.full) {
    let kl = 0;
    for (let t = 0; t < p.full.length; t++) {
      const lp = p.full[t]!;
      if (lp === -Infinity) continue;
      kl += Math.exp(lp) * (lp - (q.full[t] ?? -Infinity));
    }
    return { kl, approximate: false };
  }
  const qOf = new Map(q.top.map((x) => [x.token, x.logprob]));
  // A token outside q's top-k has at most q's smallest listed probability: use it (a lower bound on the KL term).
  const floor = q.top.length ? q.top[q.top.length - 1]!.logprob : -Infinity;
  const mass = p.top.reduce((s, x) => s + Math.exp(x.logprob), 0);
  let kl = 0;
  for (const x of p.top) {
    const pp = Math.exp(x.logprob) / mass;
    kl += pp * (Math.log(pp) - (qOf.get(x.token) ?? floor));
  }
  return { kl, approximate: true };
}

export function compareDistributions(reference: DistributionsResult, other: DistributionsResult): DistributionComparison {
  if (reference.steps.length !== other.steps.length || reference.tokens.some((t, i) => other.tokens[i] !== t)) {
    throw new Error('compareDistributions: the two results are not over the same tokens (tokenizers or texts differ)');
  }
  let agree = 0;
  let total = 0;
  let max = 0;
  let approximate = false;
  reference.steps.forEach((p, i) => {
    const q = other.steps[i]!;
    if (p.top[0] && q.top[0] && p.top[0].token === q.top[0].token) agree++;
    const k = stepKl(p, q);
    approximate ||= k.approximate;
    total += k.kl;
    max = Math.max(max, k.kl);
  });
  const n = reference.steps.length;
  return { steps: n, top1Agreement: n ? agree / n : 0, meanKl: n ? total / n : 0, maxKl: max, approximate };
}
