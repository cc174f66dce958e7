import { fmtEstimate } from '../report/markdown.ts';
import { flattenMetrics, type EstimateJson, noticeTag } from '../report/summary.ts';
import { barChart } from '../report/svg.ts';
import type { MetricEstimate } from '../stats/index.ts';
import type { SuiteAggregator } from '../kit/types.ts';
import { judgeAgreement, metricOf } from './agreement.ts';
import type { MazeMeta } from './meta.ts';
import { computeMetrics, failureTable, summaryShape, type RunOutcome } from './aggregate.ts';
import { writeMetricsReports } from './output.ts';
import { mazeMarkdown } from './report.ts';
import { MODES } from './task.ts';

function outcomesOf(metas: readonly MazeMeta[]): RunOutcome[] {
  return metas.map((m) => ({
    task_id: m.task_id,
    complexity: m.complexity,
    mode: m.mode,
    pass: m.pass,
    hit: m.hit,
    rc: m.rc,
    recovery: m.recovery,
    failure_reason: m.failure_reason,
  }));
}

export interface TokenTotals {
  runs: number;
  /** Runs whose usage was recorded (a journal from before it was, or a run cut short before any call, has none). */
  runs_with_usage: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Token totals per mode (in MODES order) and over all runs, summed from each run's recorded usage. */
export function tokensByMode(metas: readonly MazeMeta[]): Record<string, TokenTotals> {
  const out: Record<string, TokenTotals> = {};
  const add = (key: string, m: MazeMeta) => {
    const t = (out[key] ??= { runs: 0, runs_with_usage: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    t.runs++;
    if (!m.usage) return;
    t.runs_with_usage++;
    t.prompt_tokens += m.usage.prompt_tokens;
    t.completion_tokens += m.usage.completion_tokens;
    t.total_tokens += m.usage.total_tokens;
  };
  for (const mode of MODES) for (const m of metas) if (m.mode === mode) add(mode, m);
  for (const m of metas) add('all', m);
  return out;
}

/** Flatten `{tsr: {P0: e}}` into `{'tsr.P0': e}`. */
function flat(nested: Record<string, Partial<Record<string, MetricEstimate>>>): Record<string, MetricEstimate> {
  const out: Record<string, MetricEstimate> = {};
  for (const [metric, byMode] of Object.entries(nested))
    for (const [mode, e] of Object.entries(byMode)) if (e) out[`${metric}.${mode}`] = e;
  return out;
}

const bar = (label: string, e: EstimateJson | undefined) => ({
  label,
  value: e?.value ?? null,
  lo: e?.lo ?? null,
  hi: e?.hi ?? null,
  n: e?.n ?? 0,
});

/** TSR / PRR / RC per mode and per complexity × mode, recovery and failure reasons, from the tests' metas. */
export const mazeAggregator: SuiteAggregator<MazeMeta> = {
  aggregate(ms, seed) {
    const outcomes = outcomesOf(ms);
    const computed = computeMetrics(outcomes, { seed });
    const shape = summaryShape(computed);
    const breakdowns: Record<string, Record<string, Record<string, MetricEstimate>>> = { complexity: {} };
    for (const [c, nested] of Object.entries(shape.breakdowns.complexity))
      if (nested) breakdowns.complexity![c] = flat(nested);
    const recovery = Object.fromEntries(Object.entries(computed.by_mode).map(([m, x]) => [m, x!.recovery]));
    const errors = ms.filter((m) => m.error).map((m) => ({ id: m.id, trial: m.trial, error: m.error! }));
    const agreement = judgeAgreement(ms, seed);
    return {
      counts: {
        runs: ms.length,
        passes: ms.filter((m) => m.pass).length,
        hits: ms.filter((m) => m.hit).length,
        errors: errors.length,
        tasks: new Set(ms.map((m) => m.task_id)).size,
        resumed: ms.filter((m) => m.resumed).length,
      },
      metrics: {
        ...flat(shape.metrics),
        ...(agreement ? { judge_kappa: metricOf(agreement.kappa), judge_agreement: agreement.agreement } : {}),
      },
      breakdowns,
      errors,
      extra: {
        recovery,
        failure_reasons: failureTable(outcomes),
        tokens: tokensByMode(ms),
        ...(agreement ? { judge_agreement: agreement } : {}),
      },
      harnessErrors: errors.length,
      instances: ms.length,
    };
  },
  outcomes(metas) {
    // Per task and mode, the mean over its trials (one trial: its 0/1).
    const runs: Record<string, Map<string, number[]>> = {};
    for (const m of metas) {
      const byTask = (runs[`tsr.${m.mode}`] ??= new Map());
      byTask.set(m.task_id, [...(byTask.get(m.task_id) ?? []), m.pass ? 1 : 0]);
    }
    return Object.fromEntries(
      Object.entries(runs).map(([k, byTask]) => [
        k,
        new Map([...byTask].map(([id, xs]) => [id, xs.reduce((a, b) => a + b, 0) / xs.length])),
      ]),
    );
  },
  lowerIsBetter: ['rc.*'],
  comparableOn: ['judge', 'agent'],
  markdown: mazeMarkdown,
  terminal(s, outDir) {
    const f = flattenMetrics(s.metrics);
    const cfg = s.config as { judge?: string; agent?: string; agent_type?: string; tool_transport?: string };
    const lines = [
      '',
      `toolgauge · Maze · ${s.header.model} · judge ${cfg.judge ?? 'compat'} · agent ${cfg.agent_type ?? cfg.agent ?? 'fc'}${cfg.tool_transport === 'mcp' ? ' · tools over MCP' : ''}${noticeTag(s)}`,
    ];
    for (const m of MODES)
      if (f[`tsr.${m}`])
        lines.push(
          `  ${m}  TSR ${fmtEstimate(f[`tsr.${m}`])}  PRR ${fmtEstimate(f[`prr.${m}`])}  RC ${fmtEstimate(f[`rc.${m}`])}  n=${f[`tsr.${m}`]!.n}`,
        );
    lines.push(`  ${s.counts.runs} runs, ${s.counts.passes} passed, ${s.counts.errors} harness errors`);
    const ag = s.extra.judge_agreement as { judge_model: string; judged: number; judge_errors: number } | undefined;
    if (ag)
      lines.push(
        `  judges: rule vs ${ag.judge_model}: kappa ${fmtEstimate(f.judge_kappa)}, agreement ${fmtEstimate(f.judge_agreement)} over ${ag.judged} runs, ${ag.judge_errors} judge errors`,
      );
    const all = (s.extra.tokens as Record<string, TokenTotals> | undefined)?.all;
    if (all?.runs_with_usage)
      lines.push(
        `  tokens: ${all.prompt_tokens} prompt + ${all.completion_tokens} completion over ${all.runs_with_usage} runs`,
      );
    if (s.gate)
      lines.push(
        `  gate ${s.gate.expression}: ${s.gate.passed ? 'PASSED' : 'FAILED'}${s.gate.reasons.length ? ` (${s.gate.reasons.join('; ')})` : ''}`,
      );
    lines.push(`  report: ${outDir}/report.md`);
    return lines.join('\n');
  },
  charts(s) {
    const f = flattenMetrics(s.metrics);
    const sim = s.notice ? ' — simulator' : '';
    return [
      {
        file: 'charts/tsr-by-mode.svg',
        label: 'TSR per mode',
        svg: barChart(
          MODES.filter((m) => f[`tsr.${m}`]).map((m) => bar(m, f[`tsr.${m}`])),
          { title: `Maze TSR per mode (95% CI)${sim}`, axisLabel: 'task success rate' },
        ),
      },
      {
        file: 'charts/prr-by-mode.svg',
        label: 'PRR per mode',
        svg: barChart(
          MODES.filter((m) => f[`prr.${m}`]).map((m) => bar(m, f[`prr.${m}`])),
          { title: `Maze PRR per mode (95% CI)${sim}`, axisLabel: 'perturbation recovery rate' },
        ),
      },
    ];
  },
  writeExtra(outDir, ms, summary) {
    writeMetricsReports(
      outDir,
      summary.header.model,
      outcomesOf(ms),
      summary.header.ended_at,
      (summary.config as { judge?: 'compat' | 'strict' }).judge ?? 'compat',
    );
  },
};
