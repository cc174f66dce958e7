// Which judge decides a Maze run (`--verdict`, docs/maze-judge.md): the rule judge (`rules`, the default), the LLM
// judge (`llm`), or the rule judge with the LLM judge's metrics beside it (`both`). Under the LLM judge a run passes
// when its label is success, recovered or failed_safely; hit, C_act and C_oracle are facts of the trace, so TSR, PRR
// and RC follow ToolMaze's definitions with the LLM's pass in place of the rule judge's. A run without an LLM
// verdict (a judge error) is left out of the LLM's metrics and counted apart; a run cut short by the endpoint (a
// harness error, never shown to the judge) fails under either judge, as it does under the rule judge.

import type { RunOutcome } from './aggregate.ts';
import { runRc } from './judge.ts';
import type { JudgeLabel } from './llm-judge.ts';
import type { MazeMeta } from './meta.ts';
import { MODES } from './task.ts';

export const VERDICT_SETTINGS = ['rules', 'llm', 'both'] as const;
export type VerdictSetting = (typeof VERDICT_SETTINGS)[number];

/** The setting a summary's config records; a summary from before the setting existed was judged by the rules. */
export function verdictSettingOf(config: Record<string, unknown>): VerdictSetting {
  const v = config.verdict;
  return VERDICT_SETTINGS.includes(v as VerdictSetting) ? (v as VerdictSetting) : 'rules';
}

/** The labels that pass: everything but `failed` (the same split as the agreement's pass/fail table). */
export const labelPasses = (l: JudgeLabel): boolean => l !== 'failed';

/** The rule judge's outcome of a run: `rule_pass` where the LLM decided `pass`, else `pass` itself. */
export function ruleOutcome(m: MazeMeta): RunOutcome {
  return {
    task_id: m.task_id,
    complexity: m.complexity,
    mode: m.mode,
    pass: m.rule_pass ?? m.pass,
    hit: m.hit,
    rc: m.rc,
    recovery: m.recovery,
    failure_reason: m.failure_reason,
  };
}

/** Whether a run has no LLM verdict although the judge was (or should have been) asked: a judge error. */
export function isJudgeError(m: MazeMeta): boolean {
  return !m.error && (m.llm_judge === undefined || m.llm_judge.label === null);
}

/**
 * The LLM judge's outcome of a run, or null for a judge error. Its `recovery` is not reported (the LLM gives a label,
 * not a recovery kind; the reports show its labels instead): it is kept only so the outcome has the shape the
 * metric code takes.
 */
export function llmOutcome(m: MazeMeta): RunOutcome | null {
  if (isJudgeError(m)) return null;
  const label = m.llm_judge?.label ?? null;
  const pass = !m.error && label !== null && labelPasses(label);
  return {
    task_id: m.task_id,
    complexity: m.complexity,
    mode: m.mode,
    pass,
    hit: m.hit,
    rc: runRc(m.hit, pass, m.c_act, m.c_oracle),
    recovery: !m.hit ? 'none' : !pass ? 'unrecovered' : label === 'failed_safely' ? 'abort' : m.recovery,
    failure_reason: m.error ? 'harness_error' : pass ? null : 'llm_judge_failed',
  };
}

export interface LlmVerdicts {
  judge_model: string | null;
  /** Runs scored by the LLM judge's verdicts (harness errors included, as fails). */
  scored: number;
  judge_errors: number;
  /** Up to 20 judge errors, for reading. */
  judge_error_examples: Array<{ id: string; error: string }>;
  /** The LLM's labels per mode (and `judge_error`), in MODES order. */
  labels: Record<string, Record<string, number>>;
}

/** The LLM judge's outcomes over a run's metas, and what it left unscored. */
export function llmVerdicts(metas: readonly MazeMeta[]): { outcomes: RunOutcome[]; summary: LlmVerdicts } {
  const outcomes: RunOutcome[] = [];
  const errors: MazeMeta[] = [];
  const labels: Record<string, Record<string, number>> = {};
  for (const mode of MODES)
    for (const m of metas) {
      if (m.mode !== mode) continue;
      const o = llmOutcome(m);
      const key = o === null ? 'judge_error' : m.error ? 'harness_error' : m.llm_judge!.label!;
      const row = (labels[mode] ??= {});
      row[key] = (row[key] ?? 0) + 1;
      if (o) outcomes.push(o);
      else errors.push(m);
    }
  return {
    outcomes,
    summary: {
      judge_model: metas.find((m) => m.llm_judge)?.llm_judge?.model ?? null,
      scored: outcomes.length,
      judge_errors: errors.length,
      judge_error_examples: errors
        .slice(0, 20)
        .map((m) => ({ id: m.id, error: m.llm_judge?.error ?? 'the LLM judge was not asked' })),
      labels,
    },
  };
}
