import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic, writeLinesAtomic } from '../core/jsonl.ts';
import type { ReproHeader } from '../core/repro.ts';
import { compareIds } from '../report/aggregate.ts';
import { mdText } from '../report/markdown.ts';
import { buildSummary, gateMetrics, type Summary } from '../report/summary.ts';
import { evaluateGate, type GateVerdict } from './gate.ts';
import { JOURNAL } from './journal.ts';
import { instanceKey } from './names.ts';
import { rewriteRecordFiles } from './records.ts';
import type { InstanceMetaBase, SuiteAggregator } from './types.ts';

export interface Finalized {
  summary: Summary;
  gate: GateVerdict | null;
  harnessErrors: number;
  instances: number;
}

const SUMMARY_FILE = 'summary.json';
const REPORT_FILE = 'report.md';

/** How many failing instances a report lists by name (the rest are counted). */
export const FAILING_LIST_CAP = 50;

/**
 * Aggregate one suite's metas and write summary.json, report.md (with the failing instances listed), the charts,
 * the journal (sorted, one line per instance and trial) and the suite's record files in instance order. Used by the
 * reporter, `toolgauge report DIR` and rescoring, so all produce identical files from identical metas. summary.json
 * and report.md are replaced (atomically) only once aggregation succeeded; when it fails, the previous ones are
 * renamed `*.stale` (kept, but never taken for this run's) and the error names them.
 */
export function finalizeSuite(
  suite: string,
  agg: SuiteAggregator,
  metas: readonly InstanceMetaBase[],
  o: Parameters<typeof finalizeUnguarded>[3],
): Finalized {
  try {
    return finalizeUnguarded(suite, agg, metas, o);
  } catch (err) {
    const moved = [SUMMARY_FILE, REPORT_FILE].filter((f) => markStale(join(o.outDir, f)));
    const e = err as Error;
    e.message = `${suite}: aggregating ${metas.length} instances failed: ${e.message}${moved.length ? ` (the previous ${moved.join(' and ')} renamed *.stale)` : ''}`;
    throw e;
  }
}

function markStale(path: string): boolean {
  try {
    renameSync(path, `${path}.stale`);
    return true;
  } catch {
    return false;
  }
}

function finalizeUnguarded(
  suite: string,
  agg: SuiteAggregator,
  metas: readonly InstanceMetaBase[],
  o: {
    header: ReproHeader;
    config: Record<string, unknown>;
    seed: number;
    gate?: string;
    outDir: string;
    collectionErrors?: string[];
    recordFiles?: readonly string[];
    /**
     * Finished instances of the directory outside this run (a resume with a smaller --limit): written back to the
     * journal, with their record lines, but not aggregated, so a later resume finds them and does not run them again.
     */
    keepInJournal?: (inRun: (key: string) => boolean) => readonly InstanceMetaBase[];
  },
): Finalized {
  const latest = new Map<string, InstanceMetaBase>();
  for (const m of metas) latest.set(instanceKey(m.id, m.trial), m);
  const byId = (a: InstanceMetaBase, b: InstanceMetaBase) => compareIds(a.id, b.id) || a.trial - b.trial;
  const sorted = [...latest.values()].sort(byId);
  const kept = o.keepInJournal?.((key) => latest.has(key)) ?? [];
  const journal = kept.length ? [...sorted, ...kept].sort(byId) : sorted;
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
    summary.gate = { ...gate, checks: gate.checks.map((c) => ({ ...c })) };
  }
  const charts = agg.charts(summary);
  summary.extra = { ...summary.extra, charts: Object.fromEntries(charts.map((c) => [c.label, c.file])) };
  const markdown = `${withRunErrors(agg.markdown(summary).trimEnd(), collectionErrors)}\n\n${failingSection(sorted)}`;
  for (const c of charts) writeFileAtomic(join(o.outDir, c.file), c.svg, o.outDir);
  agg.writeExtra?.(o.outDir, sorted, summary);
  writeLinesAtomic(
    join(o.outDir, JOURNAL),
    (function* () {
      for (const m of journal) yield `${JSON.stringify(m)}\n`;
    })(),
    o.outDir,
  );
  writeFileAtomic(join(o.outDir, SUMMARY_FILE), JSON.stringify(summary, null, 2) + '\n', o.outDir);
  writeFileAtomic(join(o.outDir, REPORT_FILE), markdown, o.outDir);
  if (o.recordFiles?.length) {
    const order = new Map(journal.map((m) => [instanceKey(m.id, m.trial), (m.order ?? 0) * 1e4 + m.trial]));
    rewriteRecordFiles(
      o.outDir,
      o.recordFiles,
      () => true,
      (k) => order.get(k) ?? Number.MAX_SAFE_INTEGER,
    );
  }
  return { summary, gate, harnessErrors, instances: a.instances };
}

/**
 * The run's own errors (instances that never ran, a test worker that died, a file that failed to load) stated under
 * the report's title, before any figure: the figures then cover only what finished.
 */
export function withRunErrors(markdown: string, errors: readonly string[], cap = 10): string {
  if (!errors.length) return markdown;
  const lines = [
    `> **${errors.length} harness error${errors.length === 1 ? '' : 's'} outside the scored instances: the figures below cover only the instances that finished.**`,
    '>',
  ];
  for (const e of errors.slice(0, cap)) lines.push(`> - ${e.replace(/\s+/g, ' ').slice(0, 500)}`);
  if (errors.length > cap) lines.push(`> - and ${errors.length - cap} more (summary.json, extra.collection_errors)`);
  const nl = markdown.indexOf('\n');
  return nl < 0
    ? `${markdown}\n\n${lines.join('\n')}`
    : `${markdown.slice(0, nl)}\n\n${lines.join('\n')}${markdown.slice(nl)}`;
}

/** The failing instances, by id: a short reason and a link to the trace; capped, with the count of the rest. */
export function failingSection(metas: readonly InstanceMetaBase[], cap = FAILING_LIST_CAP): string {
  const failing = metas.filter((m) => m.error || !m.pass);
  if (!failing.length) return '## Failing instances\n\nNone.\n';
  const lines = [
    '## Failing instances',
    '',
    `${failing.length} of ${metas.length} runs did not pass${failing.length > cap ? ` (the first ${cap} by id are listed)` : ''}.`,
    '',
  ];
  for (const m of failing.slice(0, cap)) {
    const reason = m.error ? `harness error: ${m.error}` : (m.reason ?? 'failed');
    const trace = m.trace ? ` ([trace](${encodeURI(m.trace)}))` : '';
    lines.push(
      `- **${mdText(oneLine(m.id, 80))}**${m.trial ? ` (trial ${m.trial})` : ''}: ${mdText(oneLine(reason, 160))}${trace}`,
    );
  }
  if (failing.length > cap) lines.push(`- … and ${failing.length - cap} more (see instances.jsonl)`);
  return lines.join('\n') + '\n';
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
