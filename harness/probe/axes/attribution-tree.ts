/**
 * Attribution as Toolhound decides it (its decision tree, the default for comparable numbers), with toolgauge's
 * refinements as separate columns, and a cross-table against toolgauge's own verdicts. Pure.
 *
 * Toolhound's tree, per case (framework = the server's tool_calls / the strict parser; rescue = the lenient
 * parser):
 *   abstention case: any call, framework or rescued → model_decision_failure, else pass
 *   A. the framework parsed a call → pass if it passes, else model_decision_failure
 *   B. the template fails a minimal sanity render → framework_template_bug (for the whole model: blanket); and,
 *      per case, a template that drops prior assistant calls from the history (check finding
 *      prior_tool_call_dropped) → framework_template_bug on the cases that hold a prior call
 *   C. the rescue parser finds a call → framework_parser_gap if it passes, else model_decision_failure
 *   D. otherwise → model_format_failure
 *
 * A case the template cannot render is not dropped: it goes through the tree with an empty output (no framework
 * call, nothing to rescue), as Toolhound runs every case. Endpoint and harness errors stay out (not a model outcome).
 *
 * Refinement columns (toolgauge): truncated (the attempt ran into the end of the output), no_call_attempted
 * (nothing call-like at all), rescued_but_wrong (only the lenient tier found a call and it fails), template_flip
 * (re-rendering with the repaired template makes the case pass — toolgauge's per-case template evidence).
 * Where and why the two readings differ: see README.md in this folder.
 */

export const TOOLHOUND_CAUSES = [
  'pass',
  'framework_template_bug',
  'framework_parser_gap',
  'model_format_failure',
  'model_decision_failure',
] as const;
export type ToolhoundCause = (typeof TOOLHOUND_CAUSES)[number];
export const REFINEMENTS = ['truncated', 'no_call_attempted', 'rescued_but_wrong', 'template_flip'] as const;
export type Refinement = (typeof REFINEMENTS)[number];

type TierParse = { calls: readonly unknown[]; attempted: boolean; truncated: boolean };

/** The part of a probe record the tree reads (structurally a ProbeRecord's). */
export interface TreeRecord {
  id: string;
  error: string | null;
  expects_call: boolean;
  parse: Record<'strict' | 'lenient', TierParse> | null;
  passed: Record<'strict' | 'lenient', boolean>;
  cause: Record<'strict' | 'lenient', { cause: string | null; kind: string }>;
  counterfactual: { passed: Record<'strict' | 'lenient', boolean> } | null;
  template_findings?: readonly string[];
  /** Assistant calls in the case's history. */
  prior_calls?: number;
  /** Set when the template under test could not render the case (it was not asked). */
  render_error?: string | null;
}

export interface TreeVerdict {
  id: string;
  toolhound: ToolhoundCause;
  refinements: Record<Refinement, boolean>;
  /** toolgauge's own verdict under the strict tier (its headline), for the cross-table. */
  toolgauge: string;
}

/**
 * @param templateSane Toolhound's B test — whether a minimal tool render of the model's template works (one answer
 * per model; toolgauge's template check gives it: no finding that breaks tool rendering).
 */
export function toolhoundVerdict(r: TreeRecord, templateSane: boolean): TreeVerdict | null {
  const unrendered = !!r.render_error && !r.parse;
  if (!unrendered && (r.error || !r.parse)) return null;
  const none: TierParse = { calls: [], attempted: false, truncated: false };
  const parse = r.parse ?? { strict: none, lenient: none };
  const fw = parse.strict.calls.length > 0;
  const rescued = parse.lenient.calls.length > 0;
  const attempted = parse.strict.attempted || parse.lenient.attempted;
  const truncated = parse.strict.truncated || parse.lenient.truncated;
  const dropsPriorCall = (r.template_findings ?? []).includes('prior_tool_call_dropped') && (r.prior_calls ?? 0) > 0;
  let toolhound: ToolhoundCause;
  if (!r.expects_call) toolhound = fw || rescued ? 'model_decision_failure' : 'pass';
  else if (fw) toolhound = r.passed.strict ? 'pass' : 'model_decision_failure';
  else if (!templateSane || dropsPriorCall) toolhound = 'framework_template_bug';
  else if (rescued) toolhound = r.passed.lenient ? 'framework_parser_gap' : 'model_decision_failure';
  else toolhound = 'model_format_failure';
  const refinements: Record<Refinement, boolean> = {
    truncated: r.expects_call && !fw && !rescued && attempted && truncated,
    // a case never asked attempted nothing: not the model's "no call"
    no_call_attempted: !unrendered && r.expects_call && !fw && !rescued && !attempted,
    rescued_but_wrong: !fw && rescued && !r.passed.lenient,
    template_flip:
      !!r.counterfactual && (r.counterfactual.passed.strict || r.counterfactual.passed.lenient) && !r.passed.strict,
  };
  const v = r.cause.strict;
  return { id: r.id, toolhound, refinements, toolgauge: v.cause ?? (v.kind === 'pass' ? 'pass' : v.kind) };
}

export interface AttributionComparison {
  verdicts: TreeVerdict[];
  toolhound: Record<ToolhoundCause, number>;
  refinements: Record<Refinement, number>;
  /** toolhound cause → toolgauge cause → cases */
  crosstab: Record<string, Record<string, number>>;
  markdown: string;
}

export function compareAttribution(records: readonly TreeRecord[], templateSane: boolean): AttributionComparison {
  const verdicts = records.map((r) => toolhoundVerdict(r, templateSane)).filter((v): v is TreeVerdict => v !== null);
  const toolhound = Object.fromEntries(TOOLHOUND_CAUSES.map((c) => [c, 0])) as Record<ToolhoundCause, number>;
  const refinements = Object.fromEntries(REFINEMENTS.map((c) => [c, 0])) as Record<Refinement, number>;
  const crosstab: Record<string, Record<string, number>> = {};
  for (const v of verdicts) {
    toolhound[v.toolhound]++;
    for (const k of REFINEMENTS) if (v.refinements[k]) refinements[k]++;
    const row = (crosstab[v.toolhound] ??= {});
    row[v.toolgauge] = (row[v.toolgauge] ?? 0) + 1;
  }
  const tgCauses = [...new Set(verdicts.map((v) => v.toolgauge))].sort();
  const md = [
    '### Attribution (Toolhound decision tree; toolgauge refinements as columns)',
    '',
    `| cause (Toolhound tree) | cases | ${REFINEMENTS.join(' | ')} |`,
    `| --- | --- | ${REFINEMENTS.map(() => '---').join(' | ')} |`,
    ...TOOLHOUND_CAUSES.map((c) => {
      const vs = verdicts.filter((v) => v.toolhound === c);
      return `| ${c} | ${vs.length} | ${REFINEMENTS.map((k) => vs.filter((v) => v.refinements[k]).length).join(' | ')} |`;
    }),
    '',
    `Template sanity (Toolhound's step B, one answer per model): ${templateSane ? 'passes' : 'FAILS — every case without a framework call is blamed on the template'}.`,
    '',
    '| Toolhound tree ↓ / toolgauge (strict tier) → | ' + tgCauses.join(' | ') + ' |',
    '| --- | ' + tgCauses.map(() => '---').join(' | ') + ' |',
    ...TOOLHOUND_CAUSES.filter((c) => crosstab[c]).map(
      (c) => `| ${c} | ${tgCauses.map((t) => crosstab[c]![t] ?? 0).join(' | ')} |`,
    ),
    '',
  ].join('\n');
  return { verdicts, toolhound, refinements, crosstab, markdown: md };
}
