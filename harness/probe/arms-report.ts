/**
 * The axes of a probe run in its numbers (pure, from the tests' metas and the run's config): per-arm metrics, the
 * decode comparison (free → constrained), the method comparison (baseline → method), the lineup (one table of
 * models: layers under both readings, categories, attribution under Toolhound's tree and toolgauge's) and the
 * pairwise comparisons between models — each paired on the cases both arms ran, every verdict worded by the
 * metric's declared direction (improved / worse / no credible change).
 */
import { compareIds } from '../report/aggregate.ts';
import type { MetricEstimate } from '../stats/index.ts';
import {
  compareAttribution,
  REFINEMENTS,
  TOOLHOUND_CAUSES,
  toolhoundVerdict,
  type TreeRecord,
} from './axes/attribution-tree.ts';
import { compareArms, type Arm as OutcomeArm, type ComparisonTable } from './axes/compare-tables.ts';
import { checkQuantizationPair, type RunIdentity } from '../calls/lineup/lineup.ts';
import { damageSummary } from './axes/quant-damage.ts';
import { CONDITION, conditionalName, LAYERS, layerOutcomes, toolhoundName } from './axes/rates.ts';
import { CAUSES, TIERS, type Tier } from '../calls/attribute/index.ts';
import { AXES, armKey, armSuffix, type Arm, type Axis } from './run/arms.ts';
import type { ProbeMeta } from './run/types.ts';
import { perCase, probeOutcomes, probeRate, tierMetrics, type Value } from './report.ts';

// ---------------------------------------------------------------------------------------------------------
// The run's axes, from its config

export interface AxesConfig {
  decode: string[];
  method: string[];
  /** Model labels, in order. */
  model: string[];
  /** Per model: its quantization reference (a label) and the identity the quantization guard checks. */
  models: Array<{ label: string; quantization_of: string | null; identity: RunIdentity | null }>;
}

/** The axes a run was configured with; a run without (older, or a plain run) has one arm. */
export function axesOfConfig(config: Record<string, unknown>): AxesConfig | null {
  const a = config.axes as
    | Partial<{
        decode: string[];
        method: string[];
        models: Array<{ label: string; quantization_of?: string | null; identity?: RunIdentity | null }>;
      }>
    | undefined;
  if (!a || !Array.isArray(a.decode) || !Array.isArray(a.method) || !Array.isArray(a.models)) return null;
  return {
    decode: a.decode,
    method: a.method,
    model: a.models.map((m) => m.label),
    models: a.models.map((m) => ({
      label: m.label,
      quantization_of: m.quantization_of ?? null,
      identity: m.identity ?? null,
    })),
  };
}

export const referenceArm = (ax: AxesConfig): Arm => ({
  decode: ax.decode[0] as Arm['decode'],
  method: ax.method[0]!,
  model: ax.model[0]!,
});

/** A meta's arm; a meta without one belongs to the reference arm. */
export const armOfMeta = (m: ProbeMeta, ref: Arm): Arm =>
  m.arm ? { decode: m.arm.decode, method: m.arm.method, model: m.arm.model } : ref;

export function varying(ax: AxesConfig): Axis[] {
  return AXES.filter((a) => (a === 'decode' ? ax.decode : a === 'method' ? ax.method : ax.model).length > 1);
}

/** The arm's label in reports: the varying axes only (`decode=constrained, model=q4`). */
export function armLabel(arm: Arm, ax: AxesConfig): string {
  return armSuffix(arm, varying(ax), ', ') || 'all';
}

// ---------------------------------------------------------------------------------------------------------
// Per-arm numbers

/** The output ran into its budget (the endpoint said `length`, or the call text is cut off). */
export const truncatedOf: Value = (m) =>
  m.output ? (m.output.finish_reason === 'length' || m.parse?.strict.truncated ? 1 : 0) : null;
export const repetitionOf: Value = (m) => (m.output && m.repetition !== undefined ? (m.repetition ? 1 : 0) : null);

const LAYER_DENOMINATOR: Record<string, string> = {
  over_call_expected: 'call-expected cases (Toolhound: reached and passed this layer)',
  given: 'call-expected cases that passed the previous layer (toolgauge: conditional)',
};

/** Both readings of every layer, both tiers: `layers.<layer>.over_call_expected`, `layers.<layer>.given_<previous>`. */
export function layerMetrics(metas: readonly ProbeMeta[], seed: number): Record<string, MetricEstimate> {
  const out: Record<string, MetricEstimate> = {};
  const fam = new Map(metas.map((m) => [m.id, m.family]));
  for (const tier of TIERS) {
    const per = layerOutcomes(metas, tier);
    const prefix = tier === 'strict' ? '' : 'lenient.';
    for (const l of LAYERS) {
      for (const name of [toolhoundName(l), conditionalName(l)]) {
        const items = [...(per[name]?.entries() ?? [])].map(([id, x]) => ({ id, family: fam.get(id) ?? id, x }));
        const denom = name.endsWith('over_call_expected')
          ? LAYER_DENOMINATOR.over_call_expected!
          : CONDITION[l]
            ? LAYER_DENOMINATOR.given!
            : 'call-expected cases';
        out[`${prefix}layers.${name}`] = probeRate(items, denom, seed);
      }
    }
  }
  return out;
}

/** Decode health: truncated outputs and degenerate repetition, over every case with an output. */
export function decodeMetrics(metas: readonly ProbeMeta[], seed: number): Record<string, MetricEstimate> {
  const out: Record<string, MetricEstimate> = {
    truncated: probeRate(perCase(metas, truncatedOf), 'cases with an output', seed),
  };
  if (metas.some((m) => m.repetition !== undefined))
    out.repetition = probeRate(perCase(metas, repetitionOf), 'cases with an output', seed);
  return out;
}

/**
 * Attribution rates under Toolhound's decision tree (`attribution.toolhound.<cause>`, over cases that ran), the
 * numbers comparable with Toolhound's; toolgauge's own per-tier verdicts stay `attribution.<tier>.<cause>`.
 */
export function toolhoundMetrics(
  metas: readonly ProbeMeta[],
  seed: number,
  sane: boolean,
): Record<string, MetricEstimate> {
  // per meta (each trial has its own verdict), averaged per case by perCase
  const verdict = (m: ProbeMeta) => toolhoundVerdict(m as unknown as TreeRecord, sane)?.toolhound ?? null;
  const out: Record<string, MetricEstimate> = {};
  for (const cause of TOOLHOUND_CAUSES) {
    if (cause === 'pass') continue;
    out[`attribution.toolhound.${cause}`] = probeRate(
      perCase(metas, (m) => {
        const v = verdict(m);
        return v === null ? null : v === cause ? 1 : 0;
      }),
      "cases (Toolhound's decision tree)",
      seed,
    );
  }
  return out;
}

/** Every number of one arm (strict and lenient layers, both readings, decode health). */
export function armMetrics(metas: readonly ProbeMeta[], seed: number): Record<string, MetricEstimate> {
  return {
    ...tierMetrics(metas, 'strict', seed, ''),
    ...tierMetrics(metas, 'lenient', seed, 'lenient.'),
    ...layerMetrics(metas, seed),
    ...decodeMetrics(metas, seed),
  };
}

/** Per-case outcomes of one arm keyed by the case's own id (so arms pair on cases). */
export function caseOutcomes(metas: readonly ProbeMeta[]): Record<string, Map<string, number>> {
  const byCase = metas.map((m) => ({ ...m, id: m.case_id ?? m.id }));
  const out = probeOutcomes(byCase);
  for (const tier of TIERS) {
    const prefix = tier === 'strict' ? '' : 'lenient.';
    for (const [name, m] of Object.entries(layerOutcomes(byCase, tier))) if (m.size) out[`${prefix}layers.${name}`] = m;
  }
  for (const [name, v] of [
    ['truncated', truncatedOf],
    ['repetition', repetitionOf],
  ] as const) {
    const m = new Map(perCase(byCase, v).map((p) => [p.id, p.x]));
    if (m.size) out[name] = m;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Comparisons

/** The rows of the decode and method tables: both layer readings named apart, failure rates, decode health. */
export const COMPARISON_METRICS = [
  'accuracy',
  'parse_ok',
  'layers.schema_valid.over_call_expected',
  'layers.schema_valid.given_parse_ok',
  'layers.tool_correct.over_call_expected',
  'layers.tool_correct.given_parse_ok',
  'layers.args_correct.over_call_expected',
  'layers.args_correct.given_tool_correct',
  'abstained',
  'no_call',
  'false_trigger',
  'truncated',
  'repetition',
] as const;

export interface ComparisonJson {
  axis: Axis;
  title: string;
  a: string;
  b: string;
  /** The other axes' values this comparison holds fixed. */
  at: Partial<Arm>;
  rows: Array<{
    metric: string;
    better: 'higher' | 'lower';
    a: number | null;
    b: number | null;
    diff: number | null;
    lo: number | null;
    hi: number | null;
    n: number;
    test: string;
    p_adjusted: number | null;
    verdict: string;
    /** Toolhound's rule on the same cases: each arm's own CI, and its word (disjoint CIs = credible). */
    toolhound_rule?: {
      a_lo: number | null;
      a_hi: number | null;
      b_lo: number | null;
      b_hi: number | null;
      disjoint: boolean;
      verdict: string;
      agrees: boolean;
    };
  }>;
  markdown: string;
  /** A pair the quantization guard refused: the reason, and no rows. */
  refused?: string;
  /** A quantization pair measured on local engines: the damage figures beside the paired metrics. */
  quant_damage?: QuantDamageJson;
}

export interface QuantDamageJson {
  reference: string;
  quantized: string;
  top1_agreement: { value: number | null; lo: number | null; hi: number | null; n: number };
  mean_kl: { value: number | null; lo: number | null; hi: number | null; n: number };
  steps: number;
  exact: boolean;
  /** Cases whose measurement failed (the message of the first). */
  errors: number;
  first_error: string | null;
}

/** The damage figures of a quantized arm's records (those that carry one), with bootstrap CIs over the cases. */
export function quantDamageOf(
  reference: string,
  quantized: string,
  metas: readonly ProbeMeta[],
  seed: number,
): QuantDamageJson | null {
  const rows = metas
    .map((m) => m as { quant_damage?: QuantDamageRecordLike | null; quant_damage_error?: string | null })
    .filter((m) => m.quant_damage || m.quant_damage_error);
  if (rows.length === 0) return null;
  const ok = rows.map((r) => r.quant_damage).filter((d): d is QuantDamageRecordLike => !!d);
  const errs = rows.filter((r) => !r.quant_damage && r.quant_damage_error).map((r) => r.quant_damage_error!);
  const d = damageSummary(ok, seed);
  const e = (x: MetricEstimate) => ({ value: fin(x.value), lo: fin(x.lo), hi: fin(x.hi), n: x.n });
  return {
    reference,
    quantized,
    top1_agreement: e(d.top1_agreement),
    mean_kl: e(d.mean_kl),
    steps: d.steps,
    exact: d.exact,
    errors: errs.length,
    first_error: errs[0] ?? null,
  };
}

type QuantDamageRecordLike = { agreement: number; kl: number; steps: number; exact: boolean };

function damageMarkdown(q: QuantDamageJson): string {
  const f = (x: { value: number | null; lo: number | null; hi: number | null }, digits: number) =>
    x.value === null
      ? '—'
      : `${x.value.toFixed(digits)}${x.lo !== null && x.hi !== null ? ` [${x.lo.toFixed(digits)}, ${x.hi.toFixed(digits)}]` : ''}`;
  const lines = [
    `#### Quantization damage: ${q.reference} → ${q.quantized}`,
    '',
    `Teacher-forced over the gold transcripts (each case's prompt with its tools, then the gold call): next-token distributions of ${q.quantized} against ${q.reference}. Per case the mean over the call's tokens; 95% CI: bootstrap over cases.`,
    '',
    '| figure | value [95% CI] | cases | tokens |',
    '| --- | --- | --- | --- |',
    `| top-1 agreement (higher = less damage) | ${f(q.top1_agreement, 3)} | ${q.top1_agreement.n} | ${q.steps} |`,
    `| mean KL(${q.reference} ‖ ${q.quantized}), nats per token${q.exact ? '' : ' (lower bound: top-K lists)'} | ${f(q.mean_kl, 5)} | ${q.mean_kl.n} | ${q.steps} |`,
  ];
  if (q.errors > 0) lines.push('', `${q.errors} case(s) could not be measured: ${q.first_error}`);
  return lines.join('\n') + '\n';
}

const fin = (x: number) => (Number.isFinite(x) ? x : null);

function toJson(axis: Axis, at: Partial<Arm>, t: ComparisonTable): ComparisonJson {
  return {
    axis,
    title: t.title,
    a: t.a,
    b: t.b,
    at,
    rows: t.rows.map((r) => ({
      metric: r.metric,
      better: r.direction === 'higher_is_better' ? 'higher' : 'lower',
      a: fin(r.paired.meanA),
      b: fin(r.paired.meanB),
      diff: fin(r.paired.diff),
      lo: fin(r.paired.lo),
      hi: fin(r.paired.hi),
      n: r.paired.n,
      test: r.paired.test,
      p_adjusted: fin(r.paired.pAdjusted),
      verdict: r.word,
      toolhound_rule: {
        a_lo: fin(r.toolhound.a.lo),
        a_hi: fin(r.toolhound.a.hi),
        b_lo: fin(r.toolhound.b.lo),
        b_hi: fin(r.toolhound.b.hi),
        disjoint: r.toolhound.disjoint,
        verdict: r.toolhound.word,
        agrees: r.toolhound.agrees,
      },
    })),
    markdown: t.markdown,
  };
}

const SIM_NOTE =
  '> Simulator run: a calibration fixture plants one failure cause; these numbers describe the harness, not a model.';

/**
 * Along one axis, the first value → each other value, at every combination of the other axes (so a lineup with
 * `--decode free,constrained` gets one decode table per model).
 */
function axisComparisons(
  axis: 'decode' | 'method',
  ax: AxesConfig,
  outcomes: Map<string, Record<string, Map<string, number>>>,
  seed: number,
  simulated: boolean,
): ComparisonJson[] {
  const values = axis === 'decode' ? ax.decode : ax.method;
  if (values.length < 2) return [];
  const out: ComparisonJson[] = [];
  const others = axis === 'decode' ? { method: ax.method, model: ax.model } : { decode: ax.decode, model: ax.model };
  const combos: Array<Partial<Arm>> = [];
  for (const m of ax.model)
    for (const o of axis === 'decode' ? others.method! : others.decode!)
      combos.push(axis === 'decode' ? { model: m, method: o } : { model: m, decode: o as Arm['decode'] });
  for (const at of combos) {
    for (const v of values.slice(1)) {
      const armA = { ...at, [axis]: values[0] } as Arm;
      const armB = { ...at, [axis]: v } as Arm;
      const a = outcomes.get(armKey(armA));
      const b = outcomes.get(armKey(armB));
      if (!a || !b) continue;
      const where = varying(ax)
        .filter((x) => x !== axis)
        .map((x) => `${x} ${at[x]}`)
        .join(', ');
      const title = `${axis === 'decode' ? 'Decode' : 'Method'} comparison: ${values[0]} → ${v}${where ? ` (${where})` : ''}${simulated ? ' — simulator' : ''}`;
      const t = compareArms(
        { label: values[0]!, outcomes: a },
        { label: v, outcomes: b },
        { title, metrics: COMPARISON_METRICS, seed, ...(simulated ? { note: SIM_NOTE } : {}) },
      );
      out.push(toJson(axis, at, t));
    }
  }
  return out;
}

/** Every pair of models (at the reference decode and method), under the quantization guard for quantization pairs. */
function lineupComparisons(
  ax: AxesConfig,
  outcomes: Map<string, Record<string, Map<string, number>>>,
  seed: number,
  simulated: boolean,
  metasOf: (arm: Arm) => readonly ProbeMeta[],
): ComparisonJson[] {
  if (ax.model.length < 2) return [];
  const ref = referenceArm(ax);
  const info = new Map(ax.models.map((m) => [m.label, m]));
  const out: ComparisonJson[] = [];
  for (let i = 0; i < ax.model.length; i++) {
    for (let j = i + 1; j < ax.model.length; j++) {
      const la = ax.model[i]!;
      const lb = ax.model[j]!;
      const at = { decode: ref.decode, method: ref.method };
      const title = `Models: ${la} → ${lb}${simulated ? ' — simulator' : ''}`;
      const qa = info.get(la);
      const qb = info.get(lb);
      const quant = qb?.quantization_of === la ? [qa, qb] : qa?.quantization_of === lb ? [qb, qa] : null;
      if (quant) {
        const ident = (m: typeof qa, label: string): RunIdentity =>
          m?.identity ?? { label, template: null, tokenizer: null };
        const check = checkQuantizationPair(
          ident(quant[0], quant[0]?.label ?? la),
          ident(quant[1], quant[1]?.label ?? lb),
        );
        if (!check.ok) {
          out.push({
            axis: 'model',
            title,
            a: la,
            b: lb,
            at,
            rows: [],
            markdown: `### ${title}\n\n**Not compared:** ${check.reason}.\n`,
            refused: check.reason,
          });
          continue;
        }
      }
      const a = outcomes.get(armKey({ ...ref, model: la }));
      const b = outcomes.get(armKey({ ...ref, model: lb }));
      if (!a || !b) continue;
      const t = compareArms(
        { label: la, outcomes: a },
        { label: lb, outcomes: b },
        { title, metrics: COMPARISON_METRICS, seed, ...(simulated ? { note: SIM_NOTE } : {}) },
      );
      const json = toJson('model', at, t);
      const damage = quant
        ? quantDamageOf(
            quant[0]?.label ?? la,
            quant[1]?.label ?? lb,
            metasOf({ ...ref, model: quant[1]?.label ?? lb }),
            seed,
          )
        : null;
      if (damage)
        out.push({
          ...json,
          quant_damage: damage,
          markdown: `${json.markdown.trimEnd()}\n\n${damageMarkdown(damage)}`,
        });
      else out.push(json);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The lineup table

export const LINEUP_METRICS = [
  'accuracy',
  'parse_ok',
  'layers.schema_valid.over_call_expected',
  'layers.tool_correct.over_call_expected',
  'layers.args_correct.over_call_expected',
  'layers.schema_valid.given_parse_ok',
  'layers.tool_correct.given_parse_ok',
  'layers.args_correct.given_tool_correct',
  'no_call',
  'false_trigger',
] as const;

export interface LineupRow {
  label: string;
  metrics: Record<string, { value: number | null; lo: number | null; hi: number | null; n: number }>;
  categories: Record<string, { value: number | null; n: number }>;
  toolhound: Record<string, number>;
  refinements: Record<string, number>;
  toolgauge: Record<string, number>;
}

const est = (e: MetricEstimate | undefined) =>
  e ? { value: fin(e.value), lo: fin(e.lo), hi: fin(e.hi), n: e.n } : { value: null, lo: null, hi: null, n: 0 };

/** Toolhound's step B from the run's template check: no finding that stops a minimal tool render. */
export function templateSane(config: Record<string, unknown>): boolean {
  const t = config.template as { findings?: Array<{ id: string }> } | null | undefined;
  const breaking = new Set([
    'template_unparseable',
    'raises_on_standard_shape',
    'tools_not_rendered',
    'render_budget_exceeded',
  ]);
  return !(t?.findings ?? []).some((f) => breaking.has(f.id));
}

function lineupRow(label: string, metas: readonly ProbeMeta[], seed: number, sane: boolean): LineupRow {
  const m = armMetrics(metas, seed);
  const cats = [...new Set(metas.map((x) => x.cat))].sort(compareIds);
  const categories: LineupRow['categories'] = {};
  for (const c of cats) {
    const items = perCase(
      metas.filter((x) => x.cat === c),
      (x) => (x.passed.strict ? 1 : 0),
    );
    categories[c] = { value: items.length ? items.reduce((s, i) => s + i.x, 0) / items.length : null, n: items.length };
  }
  const tree = compareAttribution(metas as unknown as TreeRecord[], sane);
  const toolgauge: Record<string, number> = {};
  for (const x of metas) {
    if (x.error) continue;
    const k = x.cause.strict.cause ?? (x.passed.strict ? 'pass' : x.cause.strict.kind);
    toolgauge[k] = (toolgauge[k] ?? 0) + 1;
  }
  return {
    label,
    metrics: Object.fromEntries(LINEUP_METRICS.map((k) => [k, est(m[k])])),
    categories,
    toolhound: tree.toolhound,
    refinements: tree.refinements,
    toolgauge,
  };
}

// ---------------------------------------------------------------------------------------------------------
// All of it

export interface AxesAggregate {
  /** Per arm (by label): every metric, for breakdowns. */
  arms: Record<string, Record<string, MetricEstimate>>;
  extra: {
    axes: {
      decode: string[];
      method: string[];
      model: string[];
      reference: string;
      varying: Axis[];
      arms: Array<{ label: string; key: string; arm: Arm; runs: number; errors: number; mechanisms: string[] }>;
    };
    decode_comparisons: ComparisonJson[];
    method_comparisons: ComparisonJson[];
    lineup: LineupRow[] | null;
    model_comparisons: ComparisonJson[];
    attribution_tree: {
      toolhound: Record<string, number>;
      refinements: Record<string, number>;
      by_cause: Record<string, Record<string, number>>;
      crosstab: Record<string, Record<string, number>>;
      template_sane: boolean;
    };
  };
}

export function aggregateAxes(
  metas: readonly ProbeMeta[],
  seed: number,
  config: Record<string, unknown>,
  simulated: boolean,
): AxesAggregate {
  const ax = axesOfConfig(config) ?? {
    decode: ['free'],
    method: ['baseline'],
    model: [String(metas[0]?.arm?.model ?? 'model')],
    models: [],
  };
  const ref = referenceArm(ax);
  const groups = new Map<string, { arm: Arm; metas: ProbeMeta[] }>();
  for (const m of metas) {
    const arm = armOfMeta(m, ref);
    const k = armKey(arm);
    const g = groups.get(k) ?? groups.set(k, { arm, metas: [] }).get(k)!;
    g.metas.push(m);
  }
  const ordered = [...groups.values()].sort((a, b) => order(a.arm, ax) - order(b.arm, ax));
  const outcomes = new Map(ordered.map((g) => [armKey(g.arm), caseOutcomes(g.metas)]));
  const arms: AxesAggregate['arms'] = {};
  if (ordered.length > 1) for (const g of ordered) arms[armLabel(g.arm, ax)] = armMetrics(g.metas, seed);
  const sane = templateSane(config);
  const refMetas = groups.get(armKey(ref))?.metas ?? [];
  const tree = compareAttribution(refMetas as unknown as TreeRecord[], sane);
  const byCause: Record<string, Record<string, number>> = {};
  for (const v of tree.verdicts)
    for (const k of REFINEMENTS)
      if (v.refinements[k]) (byCause[v.toolhound] ??= {})[k] = (byCause[v.toolhound]?.[k] ?? 0) + 1;
  const lineup =
    ax.model.length > 1
      ? ax.model.map((label) => lineupRow(label, groups.get(armKey({ ...ref, model: label }))?.metas ?? [], seed, sane))
      : null;
  return {
    arms,
    extra: {
      axes: {
        decode: ax.decode,
        method: ax.method,
        model: ax.model,
        reference: armLabel(ref, ax),
        varying: varying(ax),
        arms: ordered.map((g) => ({
          label: armLabel(g.arm, ax),
          key: armKey(g.arm),
          arm: g.arm,
          runs: g.metas.length,
          errors: g.metas.filter((m) => m.error).length,
          mechanisms: [...new Set(g.metas.map((m) => m.constraint?.description).filter((d): d is string => !!d))],
        })),
      },
      decode_comparisons: axisComparisons('decode', ax, outcomes, seed, simulated),
      method_comparisons: axisComparisons('method', ax, outcomes, seed, simulated),
      lineup,
      model_comparisons: lineupComparisons(
        ax,
        outcomes,
        seed,
        simulated,
        (arm) => groups.get(armKey(arm))?.metas ?? [],
      ),
      attribution_tree: {
        toolhound: tree.toolhound,
        refinements: tree.refinements,
        by_cause: byCause,
        crosstab: tree.crosstab,
        template_sane: sane,
      },
    },
  };
}

function order(arm: Arm, ax: AxesConfig): number {
  const i = (xs: string[], v: string) => (xs.indexOf(v) < 0 ? xs.length : xs.indexOf(v));
  return (i(ax.model, arm.model) * 100 + i(ax.method, arm.method)) * 100 + i(ax.decode, arm.decode);
}

export { CAUSES, REFINEMENTS, TOOLHOUND_CAUSES, type OutcomeArm, type Tier };
