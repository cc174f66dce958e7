import { sha256File } from '../harness/core/hash.ts';
import { resolveOutDir } from '../harness/core/outdir.ts';
import { reproHeader } from '../harness/core/repro.ts';
import { fmtEstimate } from '../harness/report/markdown.ts';
import { buildSummary, flattenMetrics } from '../harness/report/summary.ts';
import { toolhopMarkdown } from '../harness/toolhop/report.ts';
import { resolveDataSource } from '../harness/toolhop/source.ts';
import { aggregateToolhop } from '../harness/toolhop/summary.ts';
import type { ToolhopMeta } from '../harness/vitest/meta.ts';
import type { SuiteAggregator } from './suites.ts';

export const toolhopAggregator: SuiteAggregator = {
  async build(metas, cfg, times) {
    const th = metas.filter((m): m is ToolhopMeta => m.suite === 'toolhop');
    const agg = aggregateToolhop(th, cfg.seed);
    let dataset = null;
    try {
      const src = await resolveDataSource(cfg);
      dataset = { file: src.path, sha256: sha256File(src.path), origin: src.origin };
    } catch {
      dataset = null;
    }
    const summary = buildSummary({
      suite: 'toolhop',
      header: reproHeader(cfg, { dataset, startedAt: times.startedAt, endedAt: times.endedAt }),
      config: {
        topology: cfg.toolhop.topology,
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
      },
      counts: agg.counts,
      metrics: agg.metrics,
      breakdowns: agg.breakdowns,
      errors: agg.errors,
      extra: { activity: agg.activity },
      gate: null,
    });
    return { summary, outDir: resolveOutDir(cfg, 'toolhop', cfg.toolhop.topology), instances: agg.counts.instances, harnessErrors: agg.counts.errors };
  },
  markdown: toolhopMarkdown,
  terminal(s, outDir) {
    const flat = flattenMetrics(s.metrics as never);
    const acc = flat.accuracy;
    const lines = [
      '',
      `toolgauge · ToolHop · ${(s.header as { model: string }).model}${s.notice ? '  [SIMULATOR — not a model result]' : ''}`,
      `  accuracy ${fmtEstimate(acc)}  n=${acc?.n ?? 0}  (${s.counts.correct} correct, ${s.counts.wrong} wrong, ${s.counts.errors} errors)`,
    ];
    for (const [k, e] of Object.entries(flat)) if (k !== 'accuracy') lines.push(`  ${k} ${fmtEstimate(e)}`);
    if (s.gate) lines.push(`  gate ${s.gate.expression}: ${s.gate.passed ? 'PASSED' : 'FAILED'}${s.gate.reasons.length ? ` (${s.gate.reasons.join('; ')})` : ''}`);
    lines.push(`  report: ${outDir}/report.md`);
    return lines.join('\n');
  },
};
