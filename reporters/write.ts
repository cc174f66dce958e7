import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import type { ReproHeader } from '../harness/core/repro.ts';
import { compareIds } from '../harness/report/aggregate.ts';
import { buildSummary, gateMetrics, type Summary } from '../harness/report/summary.ts';
import { evaluateGate, type GateVerdict } from '../harness/vitest/gate.ts';
import type { InstanceMeta } from '../harness/vitest/meta.ts';
import type { SuiteAggregator, SuiteName } from './suites.ts';

export const INSTANCES_FILE = 'instances.jsonl';

export interface Finalized {
  summary: Summary;
  gate: GateVerdict | null;
  harnessErrors: number;
  instances: number;
}

/**
 * Aggregate one suite's metas and write summary.json, report.md, the charts and instances.jsonl (the metas
 * themselves, so `toolgauge report` and `--compare` can recompute without the run). Used by the reporter and by
 * `toolgauge report DIR`, so both produce identical files from identical metas.
 */
export function finalizeSuite(
  suite: SuiteName,
  agg: SuiteAggregator,
  metas: InstanceMeta[],
  o: { header: ReproHeader; config: Record<string, unknown>; seed: number; gate?: string; outDir: string; collectionErrors?: string[] },
): Finalized {
  const sorted = [...metas].sort((a, b) => compareIds(a.id, b.id) || a.trial - b.trial);
  const a = agg.aggregate(sorted, o.seed, o.config);
  const collectionErrors = o.collectionErrors ?? [];
  const harnessErrors = a.harnessErrors + collectionErrors.length;
  const summary = buildSummary({
    suite,
    header: o.header,
    config: o.config,
    counts: a.counts,
    metrics: a.metrics,
    breakdowns: a.breakdowns,
    errors: a.errors,
    extra: { ...a.extra, ...(collectionErrors.length ? { collection_errors: collectionErrors } : {}) },
    gate: null,
  });
  let gate: GateVerdict | null = null;
  if (o.gate) {
    try {
      gate = evaluateGate(o.gate, gateMetrics(summary), { instances: a.instances, harnessErrors });
    } catch (err) {
      gate = { expression: o.gate, checks: [], passed: false, reasons: [(err as Error).message] };
    }
    summary.gate = gate as unknown as Summary["gate"];
  }
  const charts = agg.charts(summary);
  for (const c of charts) {
    mkdirSync(dirname(join(o.outDir, c.file)), { recursive: true });
    writeFileSync(join(o.outDir, c.file), c.svg);
  }
  summary.extra = { ...summary.extra, charts: Object.fromEntries(charts.map((c) => [c.label, c.file])) };
  writeFileAtomic(join(o.outDir, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
  writeFileAtomic(join(o.outDir, 'report.md'), agg.markdown(summary));
  agg.writeExtra?.(o.outDir, sorted, summary);
  writeFileAtomic(join(o.outDir, INSTANCES_FILE), sorted.map((m) => JSON.stringify(m) + '\n').join(''));
  return { summary, gate, harnessErrors, instances: a.instances };
}
