import { fmtEstimate } from '../report/markdown.ts';
import { flattenMetrics, noticeTag, summaryFooter } from '../report/summary.ts';
import { barChart, estimateBar } from '../report/svg.ts';
import type { SuiteAggregator } from '../kit/types.ts';
import { answeredBy, CHART_TAG } from './answered-by.ts';
import {
  aggregateAxes,
  armOfMeta,
  axesOfConfig,
  caseOutcomes,
  decodeMetrics,
  layerMetrics,
  referenceArm,
  templateSane,
  toolhoundMetrics,
} from './arms-report.ts';
import { TOOLHOUND_CAUSES } from './axes/attribution-tree.ts';
import { lowerIsBetterOf } from './axes/direction.ts';
import { conditionalName, LAYERS, toolhoundName } from './axes/rates.ts';
import { CAUSES, TIERS } from '../calls/attribute/index.ts';
import { aggregateProbe, only, probeMarkdown } from './report.ts';
import { armKey } from './run/arms.ts';
import type { ProbeMeta } from './run/types.ts';
import { quantizationRefusal, type SavedRunConfig } from './quant-guard.ts';
import { CALL_LAYERS, LAYERED_METRICS } from '../calls/score/index.ts';

/** Every metric name the probe reports (patterns end in `.*`): the direction registry words them all. */
export const PROBE_METRICS: readonly string[] = (() => {
  const tier = [
    'accuracy',
    ...LAYERED_METRICS,
    ...LAYERS.flatMap((l) => [`layers.${toolhoundName(l)}`, `layers.${conditionalName(l)}`]),
  ];
  return [
    ...tier,
    ...tier.map((m) => `lenient.${m}`),
    'error_rate',
    'truncated',
    'repetition',
    ...TIERS.flatMap((t) => CAUSES.map((c) => `attribution.${t}.${c}`)),
    ...TOOLHOUND_CAUSES.filter((c) => c !== 'pass').map((c) => `attribution.toolhound.${c}`),
    'attribution.*',
  ];
})();

/**
 * The probe suite's aggregator: layered scores under both parser tiers and both layer readings, attribution (toolgauge's
 * and Toolhound's tree), per-category rows; with axes, per-arm numbers and the paired comparisons between arms. The
 * headline metrics are the reference arm's (free, baseline, first model) — a run without axes is unchanged.
 */
export const probeAggregator: SuiteAggregator<ProbeMeta> & {
  /** Refuse `report --compare` of runs labelled as quantizations unless template and tokenizer agree (see quant-guard.ts). */
  compareGuard(runs: readonly SavedRunConfig[]): string | null;
} = {
  compareGuard: quantizationRefusal,
  aggregate(all, seed, config) {
    const metas = only(all);
    const ax = axesOfConfig(config);
    const refMetas = ax
      ? metas.filter((m) => armKey(armOfMeta(m, referenceArm(ax))) === armKey(referenceArm(ax)))
      : metas;
    const a = aggregateProbe(refMetas, seed);
    const axes = aggregateAxes(metas, seed, config, config.simulated === true);
    const errors = metas.filter((m) => m.error).map((m) => ({ id: m.id, trial: m.trial, error: m.error! }));
    const multi = Object.keys(axes.arms).length > 0;
    return {
      counts: {
        ...a.counts,
        errors: errors.length,
        ...(multi ? { arms: Object.keys(axes.arms).length, arm_runs: metas.length } : {}),
      },
      metrics: {
        ...a.metrics,
        ...layerMetrics(refMetas, seed),
        ...decodeMetrics(refMetas, seed),
        ...toolhoundMetrics(refMetas, seed, templateSane(config)),
      },
      breakdowns: { ...a.breakdowns, ...(multi ? { arm: axes.arms } : {}) },
      errors,
      extra: { ...a.extra, ...axes.extra },
      harnessErrors: errors.length,
      instances: new Set(metas.map((m) => m.id)).size,
    };
  },
  outcomes(all) {
    // Keyed by instance id (the arm is part of it), for `report --compare` of runs on the same cases and arms.
    const metas = only(all);
    return caseOutcomes(metas.map((m) => ({ ...m, case_id: m.id })));
  },
  lowerIsBetter: lowerIsBetterOf(PROBE_METRICS),
  comparableOn: ['transport'],
  markdown: probeMarkdown,
  terminal(s, outDir) {
    const flat = flattenMetrics(s.metrics);
    const c = s.counts;
    const attribution = (s.extra.attribution ?? {}) as Record<string, Record<string, number>>;
    const causes = (tier: string) =>
      Object.entries(attribution[tier] ?? {})
        .filter(([k]) => k !== 'passed')
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none';
    const lines = [
      '',
      `toolgauge · probe · ${s.header.model} · ${String((s.config as { transport?: string }).transport)}${noticeTag(s, 'SIMULATOR — calibration fixture, not a model result')}`,
      `  accuracy (strict) ${fmtEstimate(flat.accuracy)}  lenient ${fmtEstimate(flat['lenient.accuracy'])}  n=${flat.accuracy?.n ?? 0}  (${c.errors} errors)`,
      `  parse_ok ${fmtEstimate(flat.parse_ok)}  schema_valid ${fmtEstimate(flat.schema_valid)}  tool_correct ${fmtEstimate(flat.tool_correct)}  args_correct ${fmtEstimate(flat.args_correct)}`,
      `  abstained ${fmtEstimate(flat.abstained)}  false_trigger ${fmtEstimate(flat.false_trigger)}`,
      `  causes (strict): ${causes('strict')}`,
      `  causes (lenient): ${causes('lenient')}`,
    ];
    const ax = s.extra.axes as { varying?: string[]; arms?: unknown[] } | undefined;
    if (ax?.varying?.length) {
      const words = (key: string, metrics: string[]) =>
        ((s.extra[key] ?? []) as Array<{ title: string; rows: Array<{ metric: string; verdict: string }> }>).map(
          (c) =>
            `    ${c.title.replace(/ — simulator$/, '')}: ${metrics.map((m) => `${m} ${c.rows.find((r) => r.metric === m)?.verdict ?? '—'}`).join(', ')}`,
        );
      lines.push(`  arms: ${ax.arms?.length ?? 0} (${ax.varying.join(' × ')}); headline = reference arm`);
      lines.push(
        ...words('decode_comparisons', [
          'parse_ok',
          'layers.schema_valid.over_call_expected',
          'layers.args_correct.given_tool_correct',
        ]),
      );
      lines.push(...words('method_comparisons', ['accuracy', 'parse_ok']));
    }
    lines.push(...summaryFooter(s, outDir));
    return lines.join('\n');
  },
  charts(s) {
    const flat = flattenMetrics(s.metrics);
    const sim = CHART_TAG[answeredBy(s)];
    const layered = ['accuracy', ...CALL_LAYERS].flatMap((m) => [
      estimateBar(`${m} (strict)`, flat[m]),
      estimateBar(`${m} (lenient)`, flat[`lenient.${m}`]),
    ]);
    const causes = [
      'framework_template_bug',
      'framework_parser_gap',
      'model_format_failure',
      'model_decision_failure',
    ].flatMap((c) => [
      estimateBar(`${c} (strict)`, flat[`attribution.strict.${c}`]),
      estimateBar(`${c} (lenient)`, flat[`attribution.lenient.${c}`]),
    ]);
    const out = [
      {
        file: 'charts/layered.svg',
        label: 'Layered scores with 95% CI',
        svg: barChart(layered, { title: `Probe layered scores (95% CI)${sim}`, axisLabel: 'rate' }),
      },
      {
        file: 'charts/attribution.svg',
        label: 'Share of cases per attributed cause',
        svg: barChart(causes, {
          title: `Probe: cases per attributed cause (95% CI)${sim}`,
          axisLabel: 'share of cases',
        }),
      },
    ];
    const ax = s.extra.axes as
      | {
          decode: string[];
          varying: string[];
          arms: Array<{ label: string; arm: { decode: string; method: string; model: string } }>;
        }
      | undefined;
    const byArm = s.breakdowns.arm ?? {};
    const armFlat = (label: string) => flattenMetrics(byArm[label] ?? {});
    if (ax && ax.decode.length > 1) {
      // free vs constrained per layer, at the reference method and model
      const ref = ax.arms[0]!.arm;
      const arms = ax.arms.filter((a) => a.arm.method === ref.method && a.arm.model === ref.model);
      const rows = [
        'parse_ok',
        'layers.schema_valid.over_call_expected',
        'layers.tool_correct.over_call_expected',
        'layers.args_correct.over_call_expected',
        'no_call',
        'false_trigger',
        'truncated',
      ];
      const bars = rows.flatMap((m) =>
        arms.map((a) =>
          estimateBar(
            `${m.replace('layers.', '').replace('.over_call_expected', '')} (${a.arm.decode})`,
            armFlat(a.label)[m],
          ),
        ),
      );
      out.push({
        file: 'charts/decode.svg',
        label: 'Decode comparison: free vs constrained, per layer',
        svg: barChart(bars, {
          title: `Decode comparison per layer (95% CI; layers over call-expected cases)${sim}`,
          axisLabel: 'rate',
        }),
      });
    }
    const lineup = s.extra.lineup as
      | Array<{
          label: string;
          metrics: Record<string, { value: number | null; lo: number | null; hi: number | null; n: number }>;
        }>
      | null
      | undefined;
    if (lineup?.length) {
      const bars = lineup.map((r) => ({
        label: r.label,
        value: r.metrics.accuracy?.value ?? null,
        lo: r.metrics.accuracy?.lo ?? null,
        hi: r.metrics.accuracy?.hi ?? null,
        n: r.metrics.accuracy?.n ?? 0,
      }));
      out.push({
        file: 'charts/lineup.svg',
        label: 'Lineup: accuracy per model',
        svg: barChart(bars, { title: `Lineup: accuracy per model (95% CI)${sim}`, axisLabel: 'accuracy (strict)' }),
      });
    }
    return out;
  },
};
