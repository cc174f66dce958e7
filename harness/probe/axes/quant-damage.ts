/**
 * Quantization damage, as Toolhound measures it: over a case's gold transcript (the prompt rendered with the
 * case's tools, then the gold call as the continuation, teacher-forced), how often the quantized model's most
 * likely next token is the reference model's (top-1 agreement), and how far its next-token distribution lies from
 * the reference's (KL(reference ‖ quantized), nats). Per case: the mean over the continuation's steps; over cases:
 * the mean with a percentile-bootstrap CI (cases are the resampled units). Pure.
 *
 * With full distributions (every vocabulary entry) KL is exact. With top-K lists only, the distributions are
 * coarsened to the tokens both lists hold plus one "everything else" bucket: KL of a coarsening never exceeds the
 * true KL (data processing), so the figure is then a lower bound, and says so (`exact: false`).
 */
import { stepDamage, type StepDistribution } from '../../engine/compare.ts';
import { deriveSeed, Rng } from '../../core/rng.ts';
import { bootstrapRate, DEFAULT_LEVEL, DEFAULT_RESAMPLES, type MetricEstimate } from '../../stats/index.ts';
import { percentileInterval, resampleMeans } from '../../stats/resample.ts';

export { klFromLogprobs, stepDamage, type StepDamage, type StepDistribution } from '../../engine/compare.ts';

export interface CaseDamage {
  /** Share of the continuation's steps whose top-1 tokens agree. */
  agreement: number;
  /** Mean KL(reference ‖ quantized) per step, nats. */
  kl: number;
  steps: number;
  exact: boolean;
}

/** A case's damage from the two models' teacher-forced steps over the same tokens. */
export function caseDamage(ref: readonly StepDistribution[], quant: readonly StepDistribution[]): CaseDamage {
  if (ref.length !== quant.length)
    throw new Error(
      `quantization damage: ${ref.length} steps from the reference, ${quant.length} from the quantized model (the tokenizers differ)`,
    );
  if (ref.length === 0) throw new Error('quantization damage: no steps (empty continuation)');
  const s = ref.map((r, i) => stepDamage(r, quant[i]!));
  return {
    agreement: s.reduce((a, x) => a + x.agree, 0) / s.length,
    kl: s.reduce((a, x) => a + x.kl, 0) / s.length,
    steps: s.length,
    exact: s.every((x) => x.exact),
  };
}

/** Mean of any non-negative per-case values with a percentile-bootstrap CI over the cases. */
export function bootstrapMean(
  values: readonly number[],
  opts: { seed: number; denominator: string; resamples?: number; level?: number },
): MetricEstimate {
  const level = opts.level ?? DEFAULT_LEVEL;
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const n = values.length;
  if (n === 0) return { value: NaN, lo: NaN, hi: NaN, n: 0, denominator: opts.denominator, method: 'none', level };
  const value = values.reduce((a, x) => a + x, 0) / n;
  if (n === 1) return { value, lo: NaN, hi: NaN, n, denominator: opts.denominator, method: 'none', level };
  // sorted first: the interval depends on the multiset of cases only, not on their order
  const stats = resampleMeans(
    Float64Array.from(values).sort(),
    resamples,
    new Rng(deriveSeed(opts.seed, 'bootstrap-mean')),
  );
  const { lo, hi } = percentileInterval(stats, level);
  return { value, lo, hi, n, denominator: opts.denominator, method: 'bootstrap', level, seed: opts.seed, resamples };
}

export interface DamageSummary {
  top1_agreement: MetricEstimate;
  mean_kl: MetricEstimate;
  /** Teacher-forced steps over all cases. */
  steps: number;
  /** Every step's KL exact (full distributions); false: a lower bound from top-K lists. */
  exact: boolean;
}

export function damageSummary(cases: readonly CaseDamage[], seed: number): DamageSummary {
  const denominator = 'gold transcripts (cases expecting a call)';
  return {
    top1_agreement: bootstrapRate(
      cases.map((c) => c.agreement),
      { seed, denominator },
    ),
    mean_kl: bootstrapMean(
      cases.map((c) => c.kl),
      { seed, denominator },
    ),
    steps: cases.reduce((a, c) => a + c.steps, 0),
    exact: cases.every((c) => c.exact),
  };
}
