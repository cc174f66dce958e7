import { averageTrials, clusterBootstrapRate, ratioEstimate, type MetricEstimate } from '../stats/index.ts';
import { pushTo } from '../core/push-to.ts';
import type { ToolhopMeta } from './meta.ts';
import { groupTrials, passMetrics, rateOf, compareIds } from '../report/aggregate.ts';

export interface ToolhopAggregate {
  metrics: Record<string, MetricEstimate>;
  breakdowns: Record<string, Record<string, Record<string, MetricEstimate>>>;
  counts: { instances: number; runs: number; correct: number; wrong: number; errors: number; resumed: number };
  errors: Array<{ id: string; trial: number; error: string }>;
  /** Correct rows by the scoring rule that credited them. */
  rules: { literal: number; substring: number; tool_result: number };
  activity: {
    mean_turns: number;
    mean_tool_calls: number;
    tool_error_rate: number;
    forced_final_rate: number;
    total_tokens: number;
    retries: number;
    mean_model_calls: number;
  };
}

const DENOM = 'ToolHop rows (harness errors count as wrong)';

import type { ClusterBy } from './settings.ts';
export type { ClusterBy };

/** Rules 1–2 of the reference scoring: what the model itself answered (rule 3 credits the gold in a tool result). */
export const strictlyCorrect = (m: Pick<ToolhopMeta, 'correct' | 'error' | 'rule'>): boolean =>
  m.correct && !m.error && m.rule !== 'tool_result';

/**
 * ToolHop numbers from the tests' meta: accuracy (+ pass@k / pass^k with trials), by hop count, domain and answer
 * type. `clusterBy` resamples whole domains (or hop counts) for the overall accuracy's interval, for when rows of
 * one domain are not independent draws.
 */
export function aggregateToolhop(
  metas: readonly ToolhopMeta[],
  seed: number,
  clusterBy: ClusterBy = 'none',
): ToolhopAggregate {
  const sorted = [...metas].sort((a, b) => compareIds(a.id, b.id) || a.trial - b.trial);
  const key = (m: ToolhopMeta) => m.id;
  const correct = groupTrials(sorted, key, (m) => (m.correct && !m.error ? 1 : 0));
  const errored = groupTrials(sorted, key, (m) => (m.error ? 1 : 0));
  const clusterOf = new Map(sorted.map((m) => [m.id, clusterBy === 'domain' ? m.domain || '(none)' : String(m.hops)]));
  const perInstance = [...averageTrials(correct)];
  const metrics: Record<string, MetricEstimate> = {
    accuracy:
      clusterBy === 'none'
        ? rateOf(correct, DENOM, seed)
        : clusterBootstrapRate(
            perInstance.map(([, v]) => v),
            perInstance.map(([id]) => clusterOf.get(id)!),
            { denominator: `${DENOM}; clusters: ${clusterBy}`, seed },
          ),
    strict_accuracy: rateOf(
      groupTrials(sorted, key, (m) => (strictlyCorrect(m) ? 1 : 0)),
      `${DENOM}; rules 1–2 only: the final answer itself, not the gold in a tool result`,
      seed,
    ),
    error_rate: rateOf(errored, 'ToolHop rows', seed),
  };
  // Cost: total tokens per correct answer, pooled over rows (a row's trials summed), with a row bootstrap.
  const tokens = groupTrials(sorted, key, (m) => m.usage.total_tokens);
  const ids = [...correct.keys()];
  metrics.tokens_per_correct = ratioEstimate(
    ids.map((id) => sum(tokens.get(id)!)),
    ids.map((id) => sum(correct.get(id)!)),
    { denominator: 'total tokens (all agents, all requests) / correct answers; rows resampled', seed },
  );
  if (sorted.some((m) => m.team)) {
    const reports = groupTrials(sorted, key, (m) => m.team?.reports ?? 0);
    const parsed = groupTrials(sorted, key, (m) => m.team?.parsed ?? 0);
    metrics.report_parse_rate = ratioEstimate(
      ids.map((id) => sum(parsed.get(id)!)),
      ids.map((id) => sum(reports.get(id)!)),
      { denominator: 'team hand-off reports that parsed in the requested format; rows resampled', seed },
    );
  }
  const trialCounts = [...correct.values()].map((t) => t.length);
  const minTrials = trialCounts.length ? Math.min(...trialCounts) : 0;
  if (minTrials > 1) Object.assign(metrics, passMetrics(correct, minTrials, 'ToolHop rows', seed));

  const breakdowns: ToolhopAggregate['breakdowns'] = {};
  for (const [group, of] of [
    ['hops', (m: ToolhopMeta) => String(m.hops)],
    ['domain', (m: ToolhopMeta) => m.domain || '(none)'],
    ['answer_type', (m: ToolhopMeta) => m.answer_type || '(none)'],
  ] as const) {
    const byKey = new Map<string, ToolhopMeta[]>();
    for (const m of sorted) pushTo(byKey, of(m), m);
    breakdowns[group] = Object.fromEntries(
      [...byKey.entries()]
        .sort(([a], [b]) => compareIds(a, b))
        .map(([k, ms]) => [
          k,
          {
            accuracy: rateOf(
              groupTrials(ms, key, (m) => (m.correct && !m.error ? 1 : 0)),
              DENOM,
              seed,
            ),
          },
        ]),
    );
  }

  const n = sorted.length || 1;
  return {
    metrics,
    breakdowns,
    counts: {
      instances: correct.size,
      runs: sorted.length,
      correct: sorted.filter((m) => m.correct && !m.error).length,
      wrong: sorted.filter((m) => !m.correct && !m.error).length,
      errors: sorted.filter((m) => m.error).length,
      resumed: sorted.filter((m) => m.resumed).length,
    },
    errors: sorted.filter((m) => m.error).map((m) => ({ id: m.id, trial: m.trial, error: m.error! })),
    rules: {
      literal: sorted.filter((m) => m.correct && !m.error && m.rule === 'literal').length,
      substring: sorted.filter((m) => m.correct && !m.error && m.rule === 'substring').length,
      tool_result: sorted.filter((m) => m.correct && !m.error && m.rule === 'tool_result').length,
    },
    activity: {
      mean_turns: sorted.reduce((s, m) => s + m.turns, 0) / n,
      mean_tool_calls: sorted.reduce((s, m) => s + m.tool_calls, 0) / n,
      tool_error_rate:
        sorted.reduce((s, m) => s + m.tool_errors, 0) /
        Math.max(
          1,
          sorted.reduce((s, m) => s + m.tool_calls, 0),
        ),
      forced_final_rate: sorted.filter((m) => m.forced_final).length / n,
      total_tokens: sorted.reduce((s, m) => s + m.usage.total_tokens, 0),
      retries: sorted.reduce((s, m) => s + m.retries, 0),
      mean_model_calls: sorted.reduce((s, m) => s + (m.model_calls ?? m.turns), 0) / n,
    },
  };
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
