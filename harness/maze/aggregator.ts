import { fmtEstimate } from '../report/markdown.ts';
import { flattenMetrics, noticeTag, summaryFooter } from '../report/summary.ts';
import { barChart, estimateBar } from '../report/svg.ts';
import type { MetricEstimate } from '../stats/index.ts';
import type { SuiteAggregator } from '../kit/types.ts';
import { judgeAgreement, metricOf } from './agreement.ts';
import type { MazeMeta } from './meta.ts';
import { computeMetrics, failureTable, summaryShape, type RunOutcome } from './aggregate.ts';
import { writeMetricsReports } from './output.ts';
import { mazeMarkdown } from './report.ts';
import { MODES } from './task.ts';
import { isJudgeError, llmVerdicts, ruleOutcome, verdictSettingOf } from './verdicts.ts';
import type { Usage } from '../model/types.ts';
import { pushTo } from '../core/push-to.ts';

export interface TokenTotals {
  runs: number;
  /** Runs whose usage was recorded (a journal from before it was, or a run cut short before any call, has none). */
  runs_with_usage: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * Token totals per mode (in MODES order) and over all runs, summed from each run's recorded usage: the agent's by
 * default, or another model's on the run (the LLM judge's: `usageOf` returns null for a run it was not asked about).
 */
export function tokensByMode(
  metas: readonly MazeMeta[],
  usageOf: (m: MazeMeta) => Usage | undefined | null = (m) => m.usage,
): Record<string, TokenTotals> {
  const out: Record<string, TokenTotals> = {};
  const add = (key: string, m: MazeMeta) => {
    const usage = usageOf(m);
    if (usage === null) return;
    const t = (out[key] ??= { runs: 0, runs_with_usage: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    t.runs++;
    if (!usage) return;
    t.runs_with_usage++;
    t.prompt_tokens += usage.prompt_tokens;
    t.completion_tokens += usage.completion_tokens;
    t.total_tokens += usage.total_tokens;
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

/** TSR / PRR / RC (flat names, `prefix` before each) per mode and per complexity × mode, from runs' outcomes. */
function metricSet(
  outcomes: readonly RunOutcome[],
  seed: number,
  prefix = '',
): { metrics: Record<string, MetricEstimate>; complexity: Record<string, Record<string, MetricEstimate>> } {
  const shape = summaryShape(computeMetrics(outcomes, { seed }));
  const named = (m: Record<string, MetricEstimate>) =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [`${prefix}${k}`, v]));
  const complexity: Record<string, Record<string, MetricEstimate>> = {};
  for (const [c, nested] of Object.entries(shape.breakdowns.complexity))
    if (nested) complexity[c] = named(flat(nested));
  return { metrics: named(flat(shape.metrics)), complexity };
}

/** TSR / PRR / RC per mode and per complexity × mode, recovery and failure reasons, from the tests' metas. */
export const mazeAggregator: SuiteAggregator<MazeMeta> = {
  aggregate(ms, seed, config) {
    const setting = verdictSettingOf(config);
    const rules = ms.map(ruleOutcome);
    const llm = setting === 'rules' ? undefined : llmVerdicts(ms);
    // The metrics of record are the deciding judge's; with `both`, the LLM judge's beside them as `llm.<metric>`.
    const primary = llm && setting === 'llm' ? llm.outcomes : rules;
    const main = metricSet(primary, seed);
    const beside = llm && setting === 'both' ? metricSet(llm.outcomes, seed, 'llm.') : undefined;
    const breakdowns: Record<string, Record<string, Record<string, MetricEstimate>>> = { complexity: {} };
    for (const [c, m] of Object.entries(main.complexity))
      breakdowns.complexity![c] = { ...m, ...(beside?.complexity[c] ?? {}) };
    // The recovery breakdown and failure reasons are the rule judge's reading of the traces, whichever judge decides.
    const recovery = Object.fromEntries(
      Object.entries(computeMetrics(rules, { seed }).by_mode).map(([m, x]) => [m, x!.recovery]),
    );
    const errors = ms.filter((m) => m.error).map((m) => ({ id: m.id, trial: m.trial, error: m.error! }));
    const agreement = judgeAgreement(ms, seed);
    const judged = ms.filter((m) => m.llm_judge);
    return {
      counts: {
        runs: ms.length,
        passes: primary.filter((o) => o.pass).length,
        hits: ms.filter((m) => m.hit).length,
        errors: errors.length,
        tasks: new Set(ms.map((m) => m.task_id)).size,
        resumed: ms.filter((m) => m.resumed).length,
        ...(llm
          ? {
              judge_errors: llm.summary.judge_errors,
              ...(setting === 'both' ? { llm_passes: llm.outcomes.filter((o) => o.pass).length } : {}),
            }
          : {}),
      },
      metrics: {
        ...main.metrics,
        ...(beside?.metrics ?? {}),
        ...(agreement ? { judge_kappa: metricOf(agreement.kappa), judge_agreement: agreement.agreement } : {}),
      },
      breakdowns,
      errors,
      extra: {
        verdict: { setting, ...(llm ? llm.summary : {}) },
        recovery,
        failure_reasons: failureTable(rules),
        tokens: tokensByMode(ms),
        // The LLM judge's tokens, apart from the agent's: over the runs it was asked about.
        ...(judged.length ? { judge_tokens: tokensByMode(judged, (m) => m.llm_judge?.usage) } : {}),
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
      // A judge error under the LLM's verdict is no outcome: left out, as from the metrics.
      if (m.verdict_by === 'llm' && isJudgeError(m)) continue;
      const byTask = (runs[`tsr.${m.mode}`] ??= new Map());
      pushTo(byTask, m.task_id, m.pass ? 1 : 0);
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
    const setting = verdictSettingOf(s.config);
    const lines = [
      '',
      `toolgauge · Maze · ${s.header.model} · judge ${cfg.judge ?? 'compat'}${setting === 'rules' ? '' : ` · verdict ${setting}`} · agent ${cfg.agent_type ?? cfg.agent ?? 'fc'}${cfg.tool_transport === 'mcp' ? ' · tools over MCP' : ''}${noticeTag(s)}`,
    ];
    const modeLines = (prefix: string) => {
      for (const m of MODES)
        if (f[`${prefix}tsr.${m}`])
          lines.push(
            `  ${m}  TSR ${fmtEstimate(f[`${prefix}tsr.${m}`])}  PRR ${fmtEstimate(f[`${prefix}prr.${m}`])}  RC ${fmtEstimate(f[`${prefix}rc.${m}`])}  n=${f[`${prefix}tsr.${m}`]!.n}`,
          );
    };
    if (setting === 'both') lines.push("  rule judge's verdicts:");
    if (setting === 'llm') lines.push("  LLM judge's verdicts:");
    modeLines('');
    if (setting === 'both') {
      lines.push("  LLM judge's verdicts:");
      modeLines('llm.');
    }
    lines.push(
      `  ${s.counts.runs} runs, ${s.counts.passes} passed, ${s.counts.errors} harness errors${s.counts.judge_errors !== undefined ? `, ${s.counts.judge_errors} judge errors (not scored)` : ''}`,
    );
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
    const judgeAll = (s.extra.judge_tokens as Record<string, TokenTotals> | undefined)?.all;
    if (judgeAll?.runs_with_usage)
      lines.push(
        `  judge tokens: ${judgeAll.prompt_tokens} prompt + ${judgeAll.completion_tokens} completion over ${judgeAll.runs_with_usage} runs`,
      );
    lines.push(...summaryFooter(s, outDir));
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
          MODES.filter((m) => f[`tsr.${m}`]).map((m) => estimateBar(m, f[`tsr.${m}`])),
          { title: `Maze TSR per mode (95% CI)${sim}`, axisLabel: 'task success rate' },
        ),
      },
      {
        file: 'charts/prr-by-mode.svg',
        label: 'PRR per mode',
        svg: barChart(
          MODES.filter((m) => f[`prr.${m}`]).map((m) => estimateBar(m, f[`prr.${m}`])),
          { title: `Maze PRR per mode (95% CI)${sim}`, axisLabel: 'perturbation recovery rate' },
        ),
      },
    ];
  },
  writeExtra(outDir, ms, summary) {
    // ToolMaze's per-complexity metrics files carry the deciding judge's outcomes.
    const byLlm = verdictSettingOf(summary.config) === 'llm';
    writeMetricsReports(
      outDir,
      summary.header.model,
      byLlm ? llmVerdicts(ms).outcomes : ms.map(ruleOutcome),
      summary.header.ended_at,
      (summary.config as { judge?: 'compat' | 'strict' }).judge ?? 'compat',
      byLlm,
    );
  },
};
