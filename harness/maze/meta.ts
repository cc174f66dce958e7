import { z } from 'zod';
import type { InstanceMetaBase } from '../kit/types.ts';
import { Usage } from '../model/types.ts';
import { RECOVERIES } from './judge.ts';
import { JUDGE_LABELS, ruleLabel, type JudgeLabel } from './llm-judge.ts';
import type { RunOutcome } from './aggregate.ts';
import type { EvaluationFile } from './output.ts';
import { COMPLEXITIES, MODES } from './task.ts';
import { labelPasses, type VerdictSetting } from './verdicts.ts';

/** What a Maze test leaves in `task.meta.toolgauge` (the id is `<task>:<mode>`): the judged outcome and costs. */
export interface MazeMeta extends InstanceMetaBase, RunOutcome {
  suite: 'maze';
  c_act: number;
  c_oracle: number;
  turns: number;
  tool_calls: number;
  /** Tokens over the run's model calls; absent in journals written before it was recorded. */
  usage?: Usage;
  /** Both judges' labels when the LLM judge ran (`--judge-model`); its error stands in for its label. */
  llm_judge?: MazeJudgePair;
  /** Set when `pass` is the LLM judge's verdict (`--verdict llm`); `rule_pass` is then the rule judge's. */
  verdict_by?: 'llm';
  rule_pass?: boolean;
}

export interface MazeJudgePair {
  model: string;
  rule_label: JudgeLabel;
  label: JudgeLabel | null;
  error: string | null;
  /** The judge's tokens on this run, apart from the agent's `usage`. */
  usage?: Usage;
}

/**
 * MazeMeta as a schema: what a journal line read back (resume, a -t re-run, `report DIR`) must hold — every field
 * the aggregator (per mode and complexity: pass, hit, rc, recovery, failure reason) and the verdict line read. The
 * kit checks its own fields (harness/kit/journal.ts); extra fields pass through.
 */
export const MazeMetaSchema = z
  .object({
    suite: z.literal('maze'),
    task_id: z.string(),
    complexity: z.enum(COMPLEXITIES),
    mode: z.enum(MODES),
    hit: z.boolean(),
    rc: z.number().min(0).max(1),
    recovery: z.enum(RECOVERIES),
    failure_reason: z.string().nullable(),
    c_act: z.number().int().min(0),
    c_oracle: z.number().int().min(0),
    turns: z.number().int().min(0),
    tool_calls: z.number().int().min(0),
    usage: Usage.optional(),
    llm_judge: z
      .object({
        model: z.string(),
        rule_label: z.enum(JUDGE_LABELS),
        label: z.enum(JUDGE_LABELS).nullable(),
        error: z.string().nullable(),
        usage: Usage.optional(),
      })
      .optional(),
    verdict_by: z.literal('llm').optional(),
    rule_pass: z.boolean().optional(),
  })
  .passthrough();

export function mazeMetaOf(
  ev: EvaluationFile,
  extra: {
    error: string | null;
    turns: number;
    toolCalls: number;
    trial?: number;
    resumed?: boolean;
    trace?: string | null;
    usage?: Usage;
    /** `--verdict`: under `llm` the LLM judge's label decides `pass` (a judge error is no pass). */
    verdict?: VerdictSetting;
  },
): MazeMeta {
  const byLlm = extra.verdict === 'llm';
  const rulePass = ev.pass && !extra.error;
  const label = ev.llm_judge?.label ?? null;
  const pass = byLlm ? !extra.error && label !== null && labelPasses(label) : rulePass;
  return {
    suite: 'maze',
    id: `${ev.task_id}:${ev.mode}`,
    trial: extra.trial ?? 0,
    error: extra.error,
    task_id: ev.task_id,
    complexity: ev.complexity,
    mode: ev.mode,
    // A run cut short by the endpoint is not the agent's pass.
    pass,
    reason: extra.error ? extra.error : byLlm ? llmReason(ev) : ev.pass ? null : ev.failure_reason,
    trace: extra.trace ?? null,
    hit: ev.hit,
    rc: ev.rc,
    c_act: ev.c_act,
    c_oracle: ev.c_oracle,
    recovery: ev.recovery,
    failure_reason: extra.error ? 'harness_error' : ev.failure_reason,
    turns: extra.turns,
    tool_calls: extra.toolCalls,
    ...(extra.usage ? { usage: extra.usage } : {}),
    ...(ev.llm_judge
      ? {
          llm_judge: {
            model: ev.llm_judge.model,
            rule_label: ruleLabel(ev),
            label: ev.llm_judge.label,
            error: ev.llm_judge.error,
            ...(ev.llm_judge.usage ? { usage: ev.llm_judge.usage } : {}),
          },
        }
      : {}),
    ...(byLlm ? { verdict_by: 'llm' as const, rule_pass: rulePass } : {}),
    ...(extra.resumed ? { resumed: true } : {}),
  };
}

/** Why a run did not pass under the LLM judge's verdict (null when it passed). */
function llmReason(ev: EvaluationFile): string | null {
  const j = ev.llm_judge;
  if (!j || j.label === null) return `judge error: ${j?.error ?? 'the LLM judge was not asked'}`;
  if (labelPasses(j.label)) return null;
  return `failed (LLM judge)${j.verdict ? `: ${j.verdict.rests_on}` : ''}`;
}
