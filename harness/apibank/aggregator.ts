// API-Bank's numbers from the tests' metas: accuracy over the determined tasks with 95% intervals, overall and per
// level; undetermined tasks (ToolSearcher frozen-cache misses without embeddings) and harness errors counted apart;
// beside it the reference's own figure, where an undetermined task counts as wrong (what the reference records
// when its embedding model is missing).
import { fmtEstimate, headerBlock, table } from '../report/markdown.ts';
import { flattenMetrics, type EstimateJson, type Summary, summaryFooter } from '../report/summary.ts';
import { barChart, estimateBar } from '../report/svg.ts';
import { estimateRate, type MetricEstimate } from '../stats/index.ts';
import type { SuiteAggregator } from '../kit/types.ts';
import type { ApibankMeta } from './meta.ts';

const LEVELS = ['1', '2', '3'] as const;

function rates(ms: readonly ApibankMeta[], seed: number): Record<string, MetricEstimate> {
  // A harness error stays in every denominator as wrong; an undetermined verdict leaves `accuracy`'s.
  const determined = ms.filter((m) => m.error || m.correct !== null);
  return {
    accuracy: estimateRate(
      determined.map((m) => (m.correct === true && !m.error ? 1 : 0)),
      { seed, denominator: 'determined API-Bank tasks' },
    ),
    accuracy_undetermined_wrong: estimateRate(
      ms.map((m) => (m.correct === true && !m.error ? 1 : 0)),
      { seed, denominator: 'API-Bank tasks (undetermined counted wrong)' },
    ),
    undetermined_rate: estimateRate(
      ms.map((m) => (!m.error && m.correct === null ? 1 : 0)),
      { seed, denominator: 'API-Bank tasks' },
    ),
    error_rate: estimateRate(
      ms.map((m) => (m.error ? 1 : 0)),
      { seed, denominator: 'API-Bank tasks' },
    ),
  };
}

const countsOf = (ms: readonly ApibankMeta[]) => ({
  instances: ms.length,
  correct: ms.filter((m) => !m.error && m.correct === true).length,
  wrong: ms.filter((m) => !m.error && m.correct === false).length,
  undetermined: ms.filter((m) => !m.error && m.correct === null).length,
  errors: ms.filter((m) => m.error).length,
  resumed: ms.filter((m) => m.resumed).length,
});

export const apibankAggregator: SuiteAggregator<ApibankMeta> = {
  aggregate(ms, seed) {
    const byLevel: Record<string, Record<string, MetricEstimate>> = {};
    const levelCounts: Record<string, ReturnType<typeof countsOf>> = {};
    for (const l of LEVELS) {
      const sub = ms.filter((m) => m.level === l);
      if (!sub.length) continue;
      byLevel[`L${l}`] = rates(sub, seed);
      levelCounts[`L${l}`] = countsOf(sub);
    }
    const stages: Record<string, number> = {};
    for (const m of ms)
      if (m.correct === false && !m.error) stages[m.stage ?? 'none'] = (stages[m.stage ?? 'none'] ?? 0) + 1;
    const errors = ms.filter((m) => m.error).map((m) => ({ id: m.id, trial: m.trial, error: m.error! }));
    return {
      counts: countsOf(ms),
      metrics: rates(ms, seed),
      breakdowns: { level: byLevel },
      errors,
      extra: { level_counts: levelCounts, wrong_by_stage: stages },
      harnessErrors: errors.length,
      instances: ms.length,
    };
  },
  outcomes(ms) {
    return {
      accuracy: new Map(
        ms.filter((m) => m.error || m.correct !== null).map((m) => [m.id, m.correct === true && !m.error ? 1 : 0]),
      ),
    };
  },
  lowerIsBetter: ['error_rate', 'undetermined_rate'],
  comparableOn: ['toolsearcher_scorer', 'topology'],
  markdown: apibankMarkdown,
  terminal(s, outDir) {
    const f = flattenMetrics(s.metrics);
    const cfg = s.config as { level?: string; toolsearcher_scorer?: string; topology?: string };
    const lines = [
      '',
      `toolgauge · API-Bank · ${s.header.model} · level ${cfg.level ?? 'all'} · ${cfg.topology ?? 'single'} · ToolSearcher ${cfg.toolsearcher_scorer ?? 'official'}${s.notice ? '  [SIMULATOR — not a model result]' : ''}`,
      `  accuracy ${fmtEstimate(f.accuracy)}  n=${f.accuracy?.n ?? 0} determined  (${s.counts.correct} correct, ${s.counts.wrong} wrong, ${s.counts.undetermined} undetermined, ${s.counts.errors} errors)`,
    ];
    for (const l of LEVELS) {
      const e = (s.breakdowns.level as Record<string, Record<string, EstimateJson>> | undefined)?.[`L${l}`]?.accuracy;
      if (e) lines.push(`  L${l} ${fmtEstimate(e)}  n=${e.n}`);
    }
    lines.push(...summaryFooter(s, outDir));
    return lines.join('\n');
  },
  charts(s) {
    const byLevel = (s.breakdowns.level ?? {}) as Record<string, Record<string, EstimateJson>>;
    const sim = s.notice ? ' — simulator' : '';
    const bars = [
      estimateBar('all', flattenMetrics(s.metrics).accuracy),
      ...Object.entries(byLevel).map(([l, m]) => estimateBar(l, m.accuracy)),
    ];
    return [
      {
        file: 'charts/accuracy-by-level.svg',
        label: 'Accuracy per level',
        svg: barChart(bars, {
          title: `API-Bank accuracy per level (95% CI)${sim}`,
          axisLabel: 'accuracy (determined tasks)',
        }),
      },
    ];
  },
};

export function apibankMarkdown(s: Summary): string {
  const f = flattenMetrics(s.metrics);
  const byLevel = (s.breakdowns.level ?? {}) as Record<string, Record<string, EstimateJson>>;
  const lc = (s.extra.level_counts ?? {}) as Record<string, ReturnType<typeof countsOf>>;
  const cfg = s.config as { level?: string; toolsearcher_scorer?: string; topology?: string };
  const row = (
    label: string,
    m: Record<string, EstimateJson | undefined>,
    c: ReturnType<typeof countsOf> | undefined,
  ) => [
    label,
    fmtEstimate(m.accuracy),
    m.accuracy?.n ?? 0,
    c?.undetermined ?? 0,
    c?.errors ?? 0,
    fmtEstimate(m.accuracy_undetermined_wrong),
  ];
  const parts = [
    headerBlock(`API-Bank — ${s.header.model}`, s),
    `Level \`${cfg.level ?? 'all'}\` · topology \`${cfg.topology ?? 'single'}\` · ToolSearcher scorer \`${cfg.toolsearcher_scorer ?? 'official'}\`. Scored as the reference runner scores (one call per task, the gold API's own check).`,
    '',
    '## Accuracy',
    '',
    table(
      ['set', 'accuracy [95% CI]', 'determined', 'undetermined', 'harness errors', 'undetermined counted wrong'],
      [
        row('all', f, s.counts as ReturnType<typeof countsOf>),
        ...Object.entries(byLevel).map(([l, m]) => row(l, m, lc[l])),
      ],
    ),
    '',
    'Accuracy is over the determined tasks. A task is undetermined when the model searched with keywords the frozen ToolSearcher cache does not hold and no embedding model was given (`--toolsearcher-embeddings`); the last column counts those wrong, as the reference records them without its model.',
    '',
  ];
  const stages = (s.extra.wrong_by_stage ?? {}) as Record<string, number>;
  if (Object.keys(stages).length)
    parts.push(
      '## Wrong answers by stage',
      '',
      table(
        ['stage', 'tasks'],
        Object.entries(stages).map(([k, v]) => [k, v]),
      ),
      '',
    );
  for (const [label, file] of Object.entries((s.extra.charts as Record<string, string>) ?? {}))
    parts.push(`![${label}](${file})`, '');
  if (s.errors.length)
    parts.push(
      '## Harness errors',
      '',
      table(
        ['task', 'error'],
        s.errors.slice(0, 50).map((e) => [e.id, e.error.slice(0, 200)]),
      ),
      '',
    );
  parts.push(
    'Files: `predictions.jsonl`, `results.jsonl` and `traces/` as the reference writes them; `summary.json`, `instances.jsonl`.',
    '',
  );
  return parts.join('\n');
}
