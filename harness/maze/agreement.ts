// How far the rule judge and the LLM judge agree over a run's judged runs: Cohen's kappa with a bootstrap interval
// over runs, the raw agreement, and the confusion table (rule judge on the rows, LLM judge on the columns), on the
// four labels and on pass/fail. Runs with a harness error were not judged by the LLM; runs whose LLM verdict is a
// judge error are counted apart and left out of the agreement (an error is no label, and never a pass).

import {
  confusionTable,
  estimateRate,
  kappaEstimate,
  type KappaEstimate,
  type MetricEstimate,
} from '../stats/index.ts';
import { JUDGE_LABELS, type JudgeLabel } from './llm-judge.ts';
import type { MazeMeta } from './meta.ts';

export interface TableJson {
  rows: 'rule judge';
  columns: 'LLM judge';
  labels: string[];
  counts: number[][];
}

export interface JudgeAgreement {
  judge_model: string;
  /** Runs the LLM judge was asked about (runs without a harness error). */
  asked: number;
  /** Runs with both labels: the kappa's n. */
  judged: number;
  judge_errors: number;
  /** Up to 20 judge errors, for reading. */
  judge_error_examples: Array<{ id: string; error: string }>;
  kappa: KappaEstimate;
  agreement: MetricEstimate;
  confusion: TableJson;
  /** The same on pass/fail (success, recovered and failed_safely pass; failed fails). */
  pass_kappa: KappaEstimate;
  pass_confusion: TableJson;
}

const passOf = (l: JudgeLabel) => (l === 'failed' ? 'fail' : 'pass');

/** The agreement of the two judges over `metas`; undefined when no run carries an LLM verdict. */
export function judgeAgreement(metas: readonly MazeMeta[], seed: number): JudgeAgreement | undefined {
  const asked = metas.filter((m) => m.llm_judge);
  if (asked.length === 0) return undefined;
  const errors = asked.filter((m) => m.llm_judge!.label === null);
  const pairs = asked
    .filter((m) => m.llm_judge!.label !== null)
    .map((m) => [m.llm_judge!.rule_label, m.llm_judge!.label!] as [JudgeLabel, JudgeLabel]);
  const table = confusionTable(pairs, JUDGE_LABELS);
  const passTable = confusionTable(
    pairs.map(([a, b]) => [passOf(a), passOf(b)] as [string, string]),
    ['pass', 'fail'],
  );
  const denominator = 'runs judged by both judges';
  return {
    judge_model: asked[0]!.llm_judge!.model,
    asked: asked.length,
    judged: pairs.length,
    judge_errors: errors.length,
    judge_error_examples: errors.slice(0, 20).map((m) => ({ id: m.id, error: m.llm_judge!.error ?? 'no verdict' })),
    kappa: kappaEstimate(table, { denominator, seed }),
    agreement: estimateRate(
      pairs.map(([a, b]) => (a === b ? 1 : 0)),
      { denominator, seed },
    ),
    confusion: { rows: 'rule judge', columns: 'LLM judge', ...table },
    pass_kappa: kappaEstimate(passTable, { denominator, seed }),
    pass_confusion: { rows: 'rule judge', columns: 'LLM judge', ...passTable },
  };
}

/** A kappa estimate in the shape summary.json's metrics take (its extra counters stay in `extra`). */
export function metricOf(e: KappaEstimate): MetricEstimate {
  const { degenerate_resamples: _d, ...m } = e;
  return m;
}
