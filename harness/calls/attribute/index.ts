import type { LayeredScore, TierObservation } from '../score/index.ts';

/**
 * Four-cause attribution of one case under each parser tier (docs/probe.md). Pure: the case's expectation, what
 * each tier recovered and how it scored, the template findings and — when one was run — the outcome of the
 * counterfactual re-ask with a repaired template. The runner does the I/O.
 *
 * Decision procedure, per tier T (first rule that applies):
 *  0. T's outcome passed → no cause.
 *  1. A counterfactual ran and passes under T → framework_template_bug. Blame is counterfactual, never blanket:
 *     a template with findings is blamed only for cases whose outcome flips when it is repaired.
 *  2. The template could not render the case and nothing flipped → no cause (the case is a harness error).
 *  3. T = strict, the strict tier (chat: the server's `tool_calls`) recovered no call, and the lenient tier
 *     recovered calls that pass → framework_parser_gap. (A rescued call that is still wrong is the model's
 *     decision: fixing the parser would not fix the case.)
 *  4. Calls were recovered (under T, else under the lenient tier) → model_decision_failure: a call where none
 *     was expected (false_trigger), the wrong tool(s) (wrong_tool), wrong arguments (wrong_args), or
 *     schema-invalid arguments (schema_invalid).
 *  5. No call recovered: on an abstention case an attempt is a false trigger (decision); otherwise an attempt
 *     cut off by the end of the output is model_format_failure/truncated, any other attempt
 *     model_format_failure/unparseable, and no attempt at all model_decision_failure/no_call_attempted.
 *     Truncation and "no call attempted" are kept apart by `kind`.
 */

export const CAUSES = [
  'framework_template_bug',
  'framework_parser_gap',
  'model_format_failure',
  'model_decision_failure',
] as const;
export type Cause = (typeof CAUSES)[number];
export const TIERS = ['strict', 'lenient'] as const;
export type Tier = (typeof TIERS)[number];

export const VERDICT_KINDS = [
  'pass',
  'template_flip',
  'parser_gap',
  'truncated',
  'unparseable',
  'no_call_attempted',
  'false_trigger',
  'wrong_tool',
  'wrong_args',
  'schema_invalid',
  'not_rendered',
] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];

export interface Verdict {
  cause: Cause | null;
  kind: VerdictKind;
  /** One line a person can act on. */
  evidence: string;
}

export interface TierOutcome {
  obs: TierObservation;
  score: LayeredScore;
}

export interface AttributionInput {
  expectsCall: boolean;
  transport: 'chat' | 'completions';
  /** The parse family the strict tier used (null: auto-detected). */
  family: string | null;
  /** Null when the template raised on this case and nothing was asked. */
  original: Record<Tier, TierOutcome> | null;
  renderError?: string | null;
  template: { sha256: string; findings: string[] } | null;
  counterfactual: { templateSha256: string; passed: Record<Tier, boolean> } | null;
}

const callsText = (o: TierObservation) => o.calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(', ');

export function attribute(input: AttributionInput): Record<Tier, Verdict> {
  return {
    strict: withSuspicion(input, attributeTier(input, 'strict')),
    lenient: withSuspicion(input, attributeTier(input, 'lenient')),
  };
}

/**
 * A model-side verdict while the template has findings that no counterfactual could test (no repair for its
 * family, or the repair cannot render the case): the blame stays with the evidence, and the verdict says so.
 */
function withSuspicion(input: AttributionInput, v: Verdict): Verdict {
  if (!v.cause?.startsWith('model_') || input.counterfactual || !input.template?.findings.length) return v;
  return {
    ...v,
    evidence: `${v.evidence} (unverified: the template has findings — ${input.template.findings.join(', ')} — but no repaired template could be tested on this case)`,
  };
}

export function attributeTier(input: AttributionInput, tier: Tier): Verdict {
  const o = input.original;
  if (o?.[tier].score.passed) return { cause: null, kind: 'pass', evidence: 'passed' };

  const cf = input.counterfactual;
  if (cf?.passed[tier]) {
    const what = o
      ? 'fails with the template under test'
      : `cannot be rendered by the template under test (${input.renderError ?? 'it raised'})`;
    return {
      cause: 'framework_template_bug',
      kind: 'template_flip',
      evidence: `the case ${what} and passes when re-rendered with the repaired template (sha256 ${cf.templateSha256.slice(0, 12)}…); template findings: ${input.template?.findings.join(', ') || 'none'}`,
    };
  }
  if (!o)
    return {
      cause: null,
      kind: 'not_rendered',
      evidence: `the template could not render this case: ${input.renderError ?? 'unknown error'}`,
    };

  const mine = o[tier];
  const lenient = o.lenient;
  if (tier === 'strict' && mine.obs.calls.length === 0 && lenient.obs.calls.length > 0 && lenient.score.passed) {
    const where =
      input.transport === 'chat'
        ? 'the server returned no tool_calls, but the lenient tier finds the call in the message content'
        : `the strict ${input.family ?? 'auto-detected'} parser finds no call, but the lenient tier rescues it`;
    return { cause: 'framework_parser_gap', kind: 'parser_gap', evidence: `${where}: ${callsText(lenient.obs)}` };
  }

  const eff = mine.obs.calls.length > 0 ? mine : lenient;
  const rescued = eff !== mine ? ' (rescued by the lenient tier)' : '';
  if (eff.obs.calls.length > 0) {
    const s = eff.score;
    if (!input.expectsCall)
      return {
        cause: 'model_decision_failure',
        kind: 'false_trigger',
        evidence: `called ${callsText(eff.obs)}${rescued} where no call was expected`,
      };
    const why = s.problems.join('; ');
    if (s.tool_correct !== 1)
      return { cause: 'model_decision_failure', kind: 'wrong_tool', evidence: `wrong tool${rescued}: ${why}` };
    if (s.args_correct !== 1)
      return { cause: 'model_decision_failure', kind: 'wrong_args', evidence: `wrong arguments${rescued}: ${why}` };
    if (s.schema_valid !== 1)
      return {
        cause: 'model_decision_failure',
        kind: 'schema_invalid',
        evidence: `schema-invalid arguments${rescued}: ${why}`,
      };
    // Calls that pass only under the lenient tier while rule 3 did not apply cannot happen; keep a safe answer.
    return { cause: 'model_decision_failure', kind: 'wrong_args', evidence: why || 'failed' };
  }

  const attempted = o.strict.obs.attempted || lenient.obs.attempted;
  const truncated = o.strict.obs.truncated || lenient.obs.truncated;
  if (!input.expectsCall)
    return {
      cause: 'model_decision_failure',
      kind: 'false_trigger',
      evidence: 'attempted a tool call (unparseable) where no call was expected',
    };
  if (truncated)
    return {
      cause: 'model_format_failure',
      kind: 'truncated',
      evidence: 'the call attempt is cut off by the end of the output',
    };
  if (attempted)
    return {
      cause: 'model_format_failure',
      kind: 'unparseable',
      evidence: 'a call was attempted but neither parser tier can recover it',
    };
  return {
    cause: 'model_decision_failure',
    kind: 'no_call_attempted',
    evidence: 'no tool call was attempted where one was expected',
  };
}
