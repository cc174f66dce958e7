import { fmtEstimate } from '../report/markdown.ts';
import { flattenMetrics, type EstimateJson } from '../report/summary.ts';
import { barChart, type Bar } from '../report/svg.ts';
import type { SuiteAggregator } from '../kit/types.ts';
import { aggregateProbe, probeMarkdown, probeOutcomes } from './report.ts';
import type { ProbeMeta } from './run/types.ts';

const bar = (label: string, e: EstimateJson | undefined): Bar => ({ label, value: e?.value ?? null, lo: e?.lo ?? null, hi: e?.hi ?? null, n: e?.n ?? 0 });

/** The probe suite's aggregator: layered scores under both parser tiers, attribution, per-category rows. */
export const probeAggregator: SuiteAggregator<ProbeMeta> = {
  aggregate(metas, seed) {
    const a = aggregateProbe(metas, seed);
    return {
      counts: a.counts,
      metrics: a.metrics,
      breakdowns: a.breakdowns,
      errors: a.errors,
      extra: a.extra,
      harnessErrors: a.counts.errors ?? 0,
      instances: a.counts.instances ?? 0,
    };
  },
  outcomes: probeOutcomes,
  lowerIsBetter: ['error_rate', 'false_trigger', 'lenient.false_trigger', 'attribution.*'],
  comparableOn: ['transport'],
  markdown: probeMarkdown,
  terminal(s, outDir) {
    const flat = flattenMetrics(s.metrics as never);
    const c = s.counts;
    const attribution = (s.extra.attribution ?? {}) as Record<string, Record<string, number>>;
    const causes = (tier: string) =>
      Object.entries(attribution[tier] ?? {})
        .filter(([k]) => k !== 'passed')
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none';
    const lines = [
      '',
      `toolgauge · probe · ${s.header.model} · ${String((s.config as { transport?: string }).transport)}${s.notice ? '  [SIMULATOR — calibration fixture, not a model result]' : ''}`,
      `  accuracy (strict) ${fmtEstimate(flat.accuracy)}  lenient ${fmtEstimate(flat['lenient.accuracy'])}  n=${flat.accuracy?.n ?? 0}  (${c.errors} errors)`,
      `  parse_ok ${fmtEstimate(flat.parse_ok)}  schema_valid ${fmtEstimate(flat.schema_valid)}  tool_correct ${fmtEstimate(flat.tool_correct)}  args_correct ${fmtEstimate(flat.args_correct)}`,
      `  abstained ${fmtEstimate(flat.abstained)}  false_trigger ${fmtEstimate(flat.false_trigger)}`,
      `  causes (strict): ${causes('strict')}`,
      `  causes (lenient): ${causes('lenient')}`,
    ];
    if (s.gate) lines.push(`  gate ${s.gate.expression}: ${s.gate.passed ? 'PASSED' : 'FAILED'}${s.gate.reasons.length ? ` (${s.gate.reasons.join('; ')})` : ''}`);
    lines.push(`  report: ${outDir}/report.md`);
    return lines.join('\n');
  },
  charts(s) {
    const flat = flattenMetrics(s.metrics as never);
    const sim = s.notice ? ' — simulator' : '';
    const layered = ['accuracy', 'parse_ok', 'schema_valid', 'tool_correct', 'args_correct', 'abstained', 'false_trigger'].flatMap((m) => [bar(`${m} (strict)`, flat[m]), bar(`${m} (lenient)`, flat[`lenient.${m}`])]);
    const causes = ['framework_template_bug', 'framework_parser_gap', 'model_format_failure', 'model_decision_failure'].flatMap((c) => [bar(`${c} (strict)`, flat[`attribution.strict.${c}`]), bar(`${c} (lenient)`, flat[`attribution.lenient.${c}`])]);
    return [
      { file: 'charts/layered.svg', label: 'Layered scores with 95% CI', svg: barChart(layered, { title: `Probe layered scores (95% CI)${sim}`, axisLabel: 'rate' }) },
      { file: 'charts/attribution.svg', label: 'Share of cases per attributed cause', svg: barChart(causes, { title: `Probe: cases per attributed cause (95% CI)${sim}`, axisLabel: 'share of cases' }) },
    ];
  },
};
