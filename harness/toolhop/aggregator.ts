import { fmtEstimate } from '../report/markdown.ts';
import { flattenMetrics, type EstimateJson, noticeTag, summaryFooter } from '../report/summary.ts';
import { barChart, estimateBar } from '../report/svg.ts';
import type { SuiteAggregator } from '../kit/types.ts';
import type { ToolhopMeta } from './meta.ts';
import { toolhopMarkdown } from './report.ts';
import type { ClusterBy } from './settings.ts';
import { aggregateToolhop } from './aggregate.ts';
import { sandboxCounts, sandboxLine, type SandboxCounts } from './sandbox-counts.ts';

const sandboxExtra = (metas: readonly ToolhopMeta[]) => {
  const c = sandboxCounts(metas);
  return c ? { sandbox: c } : {};
};

/** ToolHop's numbers, report, terminal summary and charts from the tests' metas. */
export const toolhopAggregator: SuiteAggregator<ToolhopMeta> = {
  aggregate(metas, seed, config) {
    const a = aggregateToolhop(metas, seed, (config.ci_cluster as ClusterBy | undefined) ?? 'none');
    return {
      counts: a.counts,
      metrics: a.metrics,
      breakdowns: a.breakdowns,
      errors: a.errors,
      extra: { activity: a.activity, rules: a.rules, ...sandboxExtra(metas) },
      harnessErrors: a.counts.errors,
      instances: a.counts.instances,
    };
  },
  outcomes(metas) {
    const sums = new Map<string, { s: number; strict: number; tokens: number; k: number }>();
    for (const m of metas) {
      const e = sums.get(m.id) ?? { s: 0, strict: 0, tokens: 0, k: 0 };
      e.s += m.correct && !m.error ? 1 : 0;
      e.strict += m.correct && !m.error && m.rule !== 'tool_result' ? 1 : 0;
      e.tokens += m.usage.total_tokens;
      e.k++;
      sums.set(m.id, e);
    }
    return {
      accuracy: new Map([...sums].map(([id, e]) => [id, e.s / e.k])),
      strict_accuracy: new Map([...sums].map(([id, e]) => [id, e.strict / e.k])),
      // Tokens spent on a row (all agents): the paired cost of a change, beside its accuracy.
      tokens: new Map([...sums].map(([id, e]) => [id, e.tokens / e.k])),
    };
  },
  lowerIsBetter: ['error_rate', 'tokens', 'tokens_per_correct'],
  comparableOn: [],
  markdown: toolhopMarkdown,
  terminal(s, outDir) {
    const flat = flattenMetrics(s.metrics);
    const acc = flat.accuracy;
    const rules = s.extra.rules as { literal: number; substring: number; tool_result: number } | undefined;
    const lines = [
      '',
      `toolgauge · ToolHop · ${s.header.model}${noticeTag(s)}`,
      `  accuracy ${fmtEstimate(acc)}  n=${acc?.n ?? 0}  (${s.counts.correct} correct, ${s.counts.wrong} wrong, ${s.counts.errors} errors)`,
    ];
    const sandbox = s.extra.sandbox as SandboxCounts | undefined;
    if (sandbox) lines.push(`  ${sandboxLine(sandbox)}`);
    if (rules)
      lines.push(
        `  credited by rule: literal ${rules.literal}, substring ${rules.substring}, gold in the last tool result ${rules.tool_result}`,
      );
    for (const [k, e] of Object.entries(flat)) if (k !== 'accuracy') lines.push(`  ${k} ${fmtEstimate(e)}  n=${e.n}`);
    lines.push(...summaryFooter(s, outDir));
    return lines.join('\n');
  },
  charts(s) {
    const model = s.header.model;
    const flat = flattenMetrics(s.metrics);
    const sim = s.notice ? ' — simulator' : '';
    const charts = [
      {
        file: 'charts/accuracy.svg',
        label: 'Accuracy with 95% CI',
        svg: barChart(
          [estimateBar(`${model} (accuracy)`, flat.accuracy), estimateBar(`${model} (strict)`, flat.strict_accuracy)],
          {
            title: `ToolHop accuracy (95% CI)${sim}`,
            axisLabel: 'accuracy',
          },
        ),
      },
    ];
    for (const [group, title] of [
      ['hops', 'by hop count'],
      ['domain', 'by domain'],
    ] as const) {
      const byKey = s.breakdowns[group] as Record<string, Record<string, EstimateJson>> | undefined;
      if (!byKey || Object.keys(byKey).length < 2) continue;
      const bars = Object.entries(byKey).map(([k, ms]) => estimateBar(group === 'hops' ? `${k} hops` : k, ms.accuracy));
      charts.push({
        file: `charts/accuracy-by-${group}.svg`,
        label: `Accuracy ${title}`,
        svg: barChart(bars, { title: `ToolHop accuracy ${title} (95% CI)${sim}`, axisLabel: 'accuracy' }),
      });
    }
    return charts;
  },
};
