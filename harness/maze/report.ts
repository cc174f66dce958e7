import { fmtEstimate, headerBlock, table } from '../report/markdown.ts';
import { flattenMetrics, type EstimateJson, type Summary } from '../report/summary.ts';
import { COMPLEXITIES, MODES } from './task.ts';

/** report.md of a Maze run: TSR / PRR / RC per mode and per complexity × mode, recovery and failure reasons. */
export function mazeMarkdown(s: Summary): string {
  const flat = flattenMetrics(s.metrics);
  const modes = MODES.filter((m) => flat[`tsr.${m}`]);
  const cfg = s.config as { judge?: string; agent?: string };
  const parts = [
    headerBlock(`Maze — ${s.header.model}`, s),
    `**Judge mode: \`${cfg.judge ?? 'compat'}\` · agent mode: \`${cfg.agent ?? 'fc'}\`** (${cfg.agent === 'prompt' ? 'tools described in the prompt, calls parsed from text' : 'native function calling'}). Runs are comparable only under the same judge and agent mode.`,
    '',
    '## TSR / PRR / RC per mode',
    '',
  ];
  parts.push(
    table(
      ['mode', 'TSR [95% CI]', 'n', 'PRR [95% CI]', 'hits', 'RC [95% CI]'],
      modes.map((m) => [m, fmtEstimate(flat[`tsr.${m}`]), flat[`tsr.${m}`]?.n ?? 0, fmtEstimate(flat[`prr.${m}`]), flat[`prr.${m}`]?.n ?? 0, fmtEstimate(flat[`rc.${m}`])]),
    ),
    '',
    'TSR = passes / runs; PRR = runs that hit a perturbation and passed / runs that hit one; RC = mean recovery cost over all runs (0 without a hit, 1 on a failed hit, else 1 − C_oracle / max(C_act, C_oracle)). Intervals: Wilson for small or lopsided pass/fail samples, seeded bootstrap otherwise.',
    '',
  );
  for (const [label, file] of Object.entries((s.extra.charts as Record<string, string>) ?? {})) parts.push(`![${label}](${file})`, '');
  parts.push('## Per complexity × mode', '');
  for (const metric of ['tsr', 'prr', 'rc'] as const) {
    const rows = COMPLEXITIES.filter((c) => s.breakdowns.complexity?.[c]).map((c) => {
      const byMetric = flattenMetrics(s.breakdowns.complexity?.[c] ?? {});
      return [c.toUpperCase(), ...modes.map((m) => cell(byMetric[`${metric}.${m}`]))];
    });
    if (rows.length) parts.push(`### ${metric.toUpperCase()}`, '', table(['complexity', ...modes], rows), '');
  }
  const recovery = s.extra.recovery as Record<string, Record<string, number>> | undefined;
  if (recovery) {
    const kinds = ['retry', 'switch', 'abort', 'none', 'unrecovered'];
    parts.push('## Recovery', '', table(['mode', ...kinds], Object.entries(recovery).map(([m, r]) => [m, ...kinds.map((k) => r[k] ?? 0)])), '');
  }
  const failures = s.extra.failure_reasons as Array<Record<string, number | string>> | undefined;
  if (failures?.length) {
    parts.push('## Failures by reason', '', table(['failure reason', 'total', ...modes], failures.map((f) => [String(f.failure_reason), f.total ?? 0, ...modes.map((m) => f[m] ?? 0)])), '');
  }
  const tokens = s.extra.tokens as Record<string, { runs: number; runs_with_usage: number; prompt_tokens: number; completion_tokens: number; total_tokens: number }> | undefined;
  if (tokens && Object.keys(tokens).length) {
    parts.push(
      '## Tokens per mode',
      '',
      table(['mode', 'runs', 'with usage', 'prompt', 'completion', 'total'], Object.entries(tokens).map(([m, t]) => [m, t.runs, t.runs_with_usage, t.prompt_tokens, t.completion_tokens, t.total_tokens])),
      '',
      'As the endpoint reported them (summed over each run\'s model calls); per run in `instances.jsonl` and the inference files.',
      '',
    );
  }
  if (s.errors.length) parts.push('## Harness errors', '', table(['run', 'error'], s.errors.slice(0, 50).map((e) => [e.id, e.error.slice(0, 200)])), '');
  parts.push('Files: `<c>/inferences/<task>_<mode>_inference.json`, `<c>/evaluations/<task>_<mode>_eval.json`, `<c>/metrics/metrics_report_<timestamp>.json`, `summary.json`, `instances.jsonl`.', '');
  return parts.join('\n');
}

function cell(e: EstimateJson | undefined): string {
  return e ? `${fmtEstimate(e, 2)} n=${e.n}` : '—';
}
