import { describe, expect, it } from 'vitest';
import { caseDamage, damageSummary, klFromLogprobs, stepDamage } from './quant-damage.ts';

const ln = Math.log;
// Hand-computed: KL([.5,.5] ‖ [.9,.1]) = .5 ln(.5/.9) + .5 ln(.5/.1) = 0.5108256…
const P = [ln(0.5), ln(0.5)];
const Q = [ln(0.9), ln(0.1)];

describe('quantization damage from next-token distributions', () => {
  it('KL by hand, zero for identical distributions, asymmetric', () => {
    expect(klFromLogprobs(P, Q)).toBeCloseTo(0.5 * ln(0.5 / 0.9) + 0.5 * ln(0.5 / 0.1), 12);
    expect(klFromLogprobs(Q, P)).toBeCloseTo(0.9 * ln(0.9 / 0.5) + 0.1 * ln(0.1 / 0.5), 12);
    expect(klFromLogprobs(Q, Q)).toBe(0);
  });

  it('full distributions: exact KL and top-1 agreement (renormalized first)', () => {
    const s = stepDamage(
      { top: [], full: [ln(0.2), ln(0.3), ln(0.5)] },
      { top: [], full: [ln(0.2), ln(0.5), ln(0.3)].map((x) => x + 1) },
    );
    expect(s.agree).toBe(0);
    expect(s.exact).toBe(true);
    expect(s.kl).toBeCloseTo(0.3 * ln(0.3 / 0.5) + 0.5 * ln(0.5 / 0.3), 12);
  });

  it('top-K lists: a coarsened KL, never above the exact one, and flagged as a bound', () => {
    const p = [0.6, 0.25, 0.1, 0.05];
    const q = [0.5, 0.3, 0.05, 0.15];
    const exact = klFromLogprobs(p.map(ln), q.map(ln));
    const top = (xs: number[]) =>
      xs
        .map((x, token) => ({ token, logprob: ln(x) }))
        .sort((a, b) => b.logprob - a.logprob)
        .slice(0, 2);
    const s = stepDamage({ top: top(p) }, { top: top(q) });
    expect(s.exact).toBe(false);
    expect(s.agree).toBe(1);
    // tokens 0 and 1 in both lists; the rest lumped: p .15, q .2
    expect(s.kl).toBeCloseTo(0.6 * ln(0.6 / 0.5) + 0.25 * ln(0.25 / 0.3) + 0.15 * ln(0.15 / 0.2), 12);
    expect(s.kl).toBeLessThanOrEqual(exact);
  });

  it('a case: the mean over its steps; different step counts mean different tokenizers', () => {
    const same = { top: [{ token: 1, logprob: ln(0.9) }], full: [ln(0.1), ln(0.9)] };
    const flip = { top: [{ token: 0, logprob: ln(0.9) }], full: [ln(0.9), ln(0.1)] };
    const d = caseDamage([same, same, same, same], [same, flip, same, same]);
    expect(d.agreement).toBe(0.75);
    expect(d.kl).toBeCloseTo(klFromLogprobs(same.full, flip.full) / 4, 12);
    expect(() => caseDamage([same], [same, same])).toThrow(/tokenizers differ/);
  });

  it('over cases: means with bootstrap CIs that bracket them, seeded', () => {
    const cases = Array.from({ length: 30 }, (_, i) => ({
      agreement: i % 3 === 0 ? 0.5 : 1,
      kl: 0.001 * (i % 5),
      steps: 10,
      exact: true,
    }));
    const s = damageSummary(cases, 1);
    expect(s.top1_agreement.value).toBeCloseTo((10 * 0.5 + 20) / 30, 12);
    expect(s.mean_kl.value).toBeCloseTo(0.002, 12);
    for (const e of [s.top1_agreement, s.mean_kl]) {
      expect(e.n).toBe(30);
      expect(e.lo).toBeLessThan(e.value);
      expect(e.hi).toBeGreaterThan(e.value);
    }
    expect(damageSummary(cases, 1)).toEqual(s);
    expect(s.steps).toBe(300);
  });
});
