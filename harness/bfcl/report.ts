// summary.json and report.md for a BFCL run or rescore: BFCL's leaderboard numbers (each with an interval), the
// per-category accuracies, what could not be scored, and the "BFCL verdict vs toolgauge verdict" table.
// Until the suite kit writes BFCL's outputs, `toolgauge bfcl rescore` uses these.
import type { MetricEstimate } from '../stats/index.ts';
import type { LeaderboardEstimates } from './aggregate.ts';
import { DEVIATION_CLASSES } from './beyond.ts';
import type { RescoreReport } from './rescore.ts';

export interface BfclSummary {
  suite: 'bfcl';
  metrics: Record<string, MetricEstimate>;
  breakdowns: { category: Record<string, { accuracy: MetricEstimate }> };
  counts: {
    cases: number;
    crashes: number;
    undecided: number;
    missing: Record<string, number>;
    unknown_ids: number;
    deviations: Record<string, number>;
  };
  skipped: Array<{ file: string; reason: string }>;
  notes: string[];
}

export function summaryOf(report: RescoreReport, est: LeaderboardEstimates, header: Record<string, unknown> = {}): BfclSummary & { header: Record<string, unknown> } {
  const metrics: Record<string, MetricEstimate> = {
    overall: est.overall,
    overall_in_scope: est.overall_in_scope,
    ...Object.fromEntries(Object.entries(est.groups).map(([g, e]) => [g, e])),
  };
  const deviations: Record<string, number> = Object.fromEntries(DEVIATION_CLASSES.map((c) => [c, 0]));
  for (const r of report.records) if (r.deviation) deviations[r.deviation.class]!++;
  return {
    suite: 'bfcl',
    header,
    metrics,
    breakdowns: { category: Object.fromEntries(Object.entries(est.categories).map(([c, e]) => [c, { accuracy: e! }])) },
    counts: {
      cases: report.records.length,
      crashes: report.records.filter((r) => r.crash).length,
      undecided: report.records.filter((r) => r.undecided).length,
      missing: report.missing as Record<string, number>,
      unknown_ids: report.unknownIds.length,
      deviations,
    },
    skipped: report.skipped,
    notes: [
      "overall is BFCL's leaderboard formula: 0.1 non_live + 0.1 live + 0.1 irrelevance + 0.3 multi_turn + 0.4 agentic; toolgauge does not run the agentic categories, which count 0 as in BFCL",
      'overall_in_scope renormalises the same weights over the groups toolgauge runs (toolgauge, not BFCL)',
      ...(report.leaderboard.missing.length ? [`categories not in this run count 0: ${report.leaderboard.missing.join(', ')}`] : []),
    ],
  };
}

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(2)}%` : 'n/a');
const ci = (e: MetricEstimate) => `${pct(e.value)} [${pct(e.lo)}, ${pct(e.hi)}] (n=${e.n})`;

export function markdownOf(report: RescoreReport, summary: BfclSummary): string {
  const lines = ['# BFCL', ''];
  lines.push('| score | value [95% CI] |', '|---|---|');
  for (const [k, e] of Object.entries(summary.metrics)) lines.push(`| ${k} | ${ci(e)} |`);
  lines.push('', '| category | accuracy [95% CI] |', '|---|---|');
  for (const [c, { accuracy }] of Object.entries(summary.breakdowns.category)) lines.push(`| ${c} | ${ci(accuracy)} |`);
  const c = summary.counts;
  lines.push('', `Cases: ${c.cases}. BFCL's checker would have raised on ${c.crashes}; undecidable here: ${c.undecided}; result ids not in the data: ${c.unknown_ids}.`);
  const missing = Object.entries(c.missing);
  if (missing.length) lines.push(`Entries without a result line: ${missing.map(([k, n]) => `${k} ${n}`).join(', ')}.`);
  lines.push('', '## BFCL verdict vs toolgauge verdict', '', '| class | cases |', '|---|---|');
  for (const [k, n] of Object.entries(c.deviations)) lines.push(`| ${k} | ${n} |`);
  const examples = report.records.filter((r) => r.deviation).slice(0, 20);
  if (examples.length) {
    lines.push('', '| id | BFCL | toolgauge | class | why |', '|---|---|---|---|---|');
    for (const r of examples) lines.push(`| ${r.id} | ${r.deviation!.bfcl} | ${r.deviation!.toolgauge} | ${r.deviation!.class} | ${r.deviation!.note.replace(/\|/g, '\\|').slice(0, 160)} |`);
  }
  lines.push('', ...summary.notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}
