import { sha256File } from '../harness/core/hash.ts';
import { resolveOutDir } from '../harness/core/outdir.ts';
import { fmtEstimate } from '../harness/report/markdown.ts';
import { flattenMetrics, type EstimateJson, type Summary } from '../harness/report/summary.ts';
import { barChart } from '../harness/report/svg.ts';
import { toolhopMarkdown } from '../harness/toolhop/report.ts';
import { resolveDataSource } from '../harness/toolhop/source.ts';
import { aggregateToolhop, type ClusterBy } from '../harness/toolhop/summary.ts';
import type { ToolhopMeta } from '../harness/vitest/meta.ts';
import type { SuiteAggregator } from './suites.ts';

const only = (metas: unknown[]) => metas.filter((m): m is ToolhopMeta => (m as ToolhopMeta).suite === 'toolhop');

export const toolhopAggregator: SuiteAggregator = {
  aggregate(metas, seed, config) {
    const a = aggregateToolhop(only(metas), seed, (config.ci_cluster as ClusterBy | undefined) ?? 'none');
    return {
      counts: a.counts,
      metrics: a.metrics,
      breakdowns: a.breakdowns,
      errors: a.errors,
      extra: { activity: a.activity },
      harnessErrors: a.counts.errors,
      instances: a.counts.instances,
    };
  },
  outcomes(metas) {
    const sums = new Map<string, { s: number; k: number }>();
    for (const m of only(metas)) {
      const e = sums.get(m.id) ?? { s: 0, k: 0 };
      e.s += m.correct && !m.error ? 1 : 0;
      e.k++;
      sums.set(m.id, e);
    }
    return { accuracy: new Map([...sums].map(([id, e]) => [id, e.s / e.k])) };
  },
  config(cfg) {
    return {
      topology: cfg.toolhop.topology,
      data: cfg.toolhop.data ?? null,
      limit: cfg.toolhop.limit,
      offset: cfg.toolhop.offset,
      only: cfg.toolhop.only ?? null,
      max_turns: cfg.toolhop.maxTurns,
      tool_result_char_budget: cfg.toolhop.toolResultCharBudget,
      sandbox: cfg.sandbox.backend,
      concurrency: cfg.concurrency,
      request_timeout_ms: cfg.requestTimeoutMs,
      retries: cfg.retries,
      cache: cfg.cache,
      allow_dataset_exec: cfg.toolhop.allowDatasetExec,
      ci_cluster: process.env.TOOLGAUGE_CI_CLUSTER ?? 'none',
    };
  },
  async dataset(cfg) {
    try {
      const src = await resolveDataSource(cfg);
      return { file: src.path, sha256: sha256File(src.path), origin: src.origin };
    } catch {
      return null;
    }
  },
  outDir: (cfg) => resolveOutDir(cfg, 'toolhop', cfg.toolhop.topology),
  markdown: toolhopMarkdown,
  terminal(s, outDir) {
    const flat = flattenMetrics(s.metrics as never);
    const acc = flat.accuracy;
    const lines = [
      '',
      `toolgauge · ToolHop · ${(s.header as { model: string }).model}${s.notice ? '  [SIMULATOR — not a model result]' : ''}`,
      `  accuracy ${fmtEstimate(acc)}  n=${acc?.n ?? 0}  (${s.counts.correct} correct, ${s.counts.wrong} wrong, ${s.counts.errors} errors)`,
    ];
    for (const [k, e] of Object.entries(flat)) if (k !== 'accuracy') lines.push(`  ${k} ${fmtEstimate(e)}  n=${e.n}`);
    if (s.gate) lines.push(`  gate ${s.gate.expression}: ${s.gate.passed ? 'PASSED' : 'FAILED'}${s.gate.reasons.length ? ` (${s.gate.reasons.join('; ')})` : ''}`);
    lines.push(`  report: ${outDir}/report.md`);
    return lines.join('\n');
  },
  charts(s) {
    const model = String((s.header as { model: string }).model);
    const flat = flattenMetrics(s.metrics as never);
    const bar = (label: string, e: EstimateJson | undefined) => ({ label, value: e?.value ?? null, lo: e?.lo ?? null, hi: e?.hi ?? null, n: e?.n ?? 0 });
    const charts = [
      { file: 'charts/accuracy.svg', label: 'Accuracy with 95% CI', svg: barChart([bar(model, flat.accuracy)], { title: `ToolHop accuracy (95% CI)${s.notice ? ' — simulator' : ''}`, axisLabel: 'accuracy' }) },
    ];
    for (const [group, title] of [['hops', 'by hop count'], ['domain', 'by domain']] as const) {
      const byKey = s.breakdowns[group] as Record<string, Record<string, EstimateJson>> | undefined;
      if (!byKey || Object.keys(byKey).length < 2) continue;
      const bars = Object.entries(byKey).map(([k, ms]) => bar(group === 'hops' ? `${k} hops` : k, ms.accuracy));
      charts.push({ file: `charts/accuracy-by-${group}.svg`, label: `Accuracy ${title}`, svg: barChart(bars, { title: `ToolHop accuracy ${title} (95% CI)${s.notice ? ' — simulator' : ''}`, axisLabel: 'accuracy' }) });
    }
    return charts;
  },
};

export type { Summary };
