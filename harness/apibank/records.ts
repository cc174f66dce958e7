// The reference runner's output files, line for line (its run_one / run_batch): predictions.jsonl, results.jsonl
// and traces/<id with / and : replaced by _>.json. `correct` is null (and `answer_correct` null) when the verdict is
// undetermined, where the reference, lacking its embedding model, would have written false.
import { JsonFloat, stringifyJson } from '../core/json-float.ts';
import { toPlainJson, type ApibankTask } from './tasks.ts';
import { questionOf, type TaskOutcome } from './run.ts';

export const APIBANK_FILES = { predictions: 'predictions.jsonl', results: 'results.jsonl', traces: 'traces' } as const;

/** `traces/<id>.json` with `/` and `:` replaced by `_`, as the reference names them. */
export const referenceTracePath = (id: string) =>
  `${APIBANK_FILES.traces}/${id.replace(/\//g, '_').replace(/:/g, '_')}.json`;

export interface LineContext {
  model: string;
  style: string;
}

export function resultSummary(t: ApibankTask, o: TaskOutcome, c: LineContext): Record<string, unknown> {
  const v = o.verdict;
  const correct = o.error ? false : v.correct;
  const base: Record<string, unknown> = {
    id: t.id,
    idx: t.id,
    level: t.level,
    file: t.file,
    sample_id: t.sample_id,
    question: questionOf(t),
    gold_api_call: t.gold_api_call,
    gold_api_name: t.ground_truth.api_name,
    style: c.style,
    // A Python float in the reference's files (`round(…, 1)`): `2.0`, never `2`.
    solve_s: new JsonFloat(o.solve_s),
    predicted_answer: o.predicted_answer,
    predicted_api_name: o.error ? null : v.predicted_api_name,
    predicted_params: o.error ? null : v.predicted_params,
    answer_correct: correct === null ? null : correct ? 1 : 0,
    correct,
    stage: o.error ? null : v.stage,
    error: o.error ?? v.error,
    turns: 1,
    tool_calls: 0,
    n_agents: o.n_agents,
  };
  if (o.team)
    for (const k of ['n_rounds', 'winner', 'buckets', 'per_agent'] as const) if (k in o.team) base[k] = o.team[k];
  return {
    ...base,
    prompt_tokens: o.usage.prompt_tokens,
    completion_tokens: o.usage.completion_tokens,
    total_tokens: o.usage.total_tokens,
    n_llm_calls: o.usage.n_llm_calls,
    n_tool_calls: 0,
  };
}

export const predictionLine = (t: ApibankTask, o: TaskOutcome, c: LineContext) => ({
  idx: t.id,
  id: t.id,
  question: questionOf(t),
  predicted_answer: o.predicted_answer,
  model_name_or_path: c.model,
});

/** The trace as the reference writes it (JSON, indent 2), plus the team's runs when there is a team. */
export function traceText(t: ApibankTask, o: TaskOutcome, summary: Record<string, unknown>): string {
  return stringifyJson(
    { summary, messages: o.messages, ground_truth: toPlainJson(t.ground_truth), ...(o.team ? { team: o.team } : {}) },
    2,
  );
}
