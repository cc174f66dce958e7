/**
 * Which way is better, for every probe metric, and the words a comparison may use. A paired comparison says
 * whether B − A is credibly above or below zero; whether that is good news depends on the metric: a rising
 * `no_call` or `false_trigger` rate is a failure growing. So comparisons are worded "improved" / "worse" /
 * "no credible change" from the metric's declared direction — never "gain" for a failure rate going up.
 */
import type { PairedComparison } from '../../stats/index.ts';

export type Direction = 'higher_is_better' | 'lower_is_better';

/** Base metric names (prefixes such as `lenient.` and suffixes such as `.over_call_expected` are stripped). */
export const METRIC_DIRECTIONS: Readonly<Record<string, Direction>> = {
  accuracy: 'higher_is_better',
  parse_ok: 'higher_is_better',
  schema_valid: 'higher_is_better',
  tool_correct: 'higher_is_better',
  args_correct: 'higher_is_better',
  abstained: 'higher_is_better',
  pass_rate: 'higher_is_better',
  false_trigger: 'lower_is_better',
  no_call: 'lower_is_better',
  error_rate: 'lower_is_better',
  truncated: 'lower_is_better',
  repetition: 'lower_is_better',
  forced: 'lower_is_better',
  latency_ms: 'lower_is_better',
  // failure shares of the attribution (any cause or detail)
  attribution: 'lower_is_better',
};

const TIER_PREFIX = /^(strict|lenient)\./;
const LAYERS_PREFIX = /^layers\./;
const SUFFIX = /\.(over_call_expected|given_[a-z_]+)$/;

/**
 * The declared direction of a metric name as reports spell it (`lenient.no_call`, `args_correct.given_tool_correct`,
 * `layers.tool_correct.over_call_expected`, `attribution.strict.model_format_failure`).
 */
export function directionOf(metric: string): Direction {
  const base = metric.replace(TIER_PREFIX, '').replace(LAYERS_PREFIX, '').replace(SUFFIX, '');
  const d = METRIC_DIRECTIONS[base] ?? METRIC_DIRECTIONS[base.split('.')[0]!];
  if (!d) throw new Error(`metric '${metric}' declares no direction (add it to METRIC_DIRECTIONS)`);
  return d;
}

export type ChangeWord = 'improved' | 'worse' | 'no credible change';

/** The wording of a paired comparison A → B for this metric. */
export function changeWord(metric: string, verdict: PairedComparison['verdict']): ChangeWord {
  if (verdict === 'no credible change') return verdict;
  const up = verdict === 'credible gain'; // B credibly above A
  return up === (directionOf(metric) === 'higher_is_better') ? 'improved' : 'worse';
}

const num = (x: number, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : '—');
const signed = (x: number, d = 3) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(d)}` : '—');

/** One line: "no_call 0.200 → 0.050 (Δ −0.150 [−0.220, −0.080], p_adj 0.001, n 40): improved (lower is better)". */
export function describeChange(c: PairedComparison): string {
  const dir = directionOf(c.metric) === 'higher_is_better' ? 'higher is better' : 'lower is better';
  return `${c.metric} ${num(c.meanA)} → ${num(c.meanB)} (Δ ${signed(c.diff)} [${signed(c.lo)}, ${signed(c.hi)}], p_adj ${num(c.pAdjusted)}, n ${c.n}): ${changeWord(c.metric, c.verdict)} (${dir})`;
}

/**
 * The `lowerIsBetter` list a suite aggregator gives the kit (`report --compare` words its verdicts with it), from
 * this registry: every name (or `prefix.*` pattern) whose declared direction is lower-is-better. One source of truth.
 */
export function lowerIsBetterOf(names: readonly string[]): string[] {
  return names.filter((n) => directionOf(n.endsWith('.*') ? n.slice(0, -2) : n) === 'lower_is_better');
}
