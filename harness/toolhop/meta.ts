import type { ToolhopMeta } from '../vitest/meta.ts';
import type { Finished } from './output.ts';
import type { ToolhopOutcome } from './run-instance.ts';

/** The test meta of a ToolHop instance, from a fresh outcome or from the files of an earlier run. */
export function metaFromOutcome(o: ToolhopOutcome): ToolhopMeta {
  const tools = o.trace.tool_executions as Array<{ meta?: { outcome?: string } }>;
  const calls = o.trace.model_calls as Array<{ latencyMs: number; attempts: number }>;
  return {
    suite: 'toolhop',
    id: o.result.id,
    trial: o.result.trial,
    error: o.result.error,
    correct: o.result.correct,
    rule: o.result.rule,
    hops: o.result.hops,
    domain: o.result.domain,
    answer_type: o.result.answer_type,
    gold: o.result.gold_answer,
    predicted: o.result.predicted_answer,
    turns: o.prediction.turns,
    tool_calls: o.prediction.tool_calls,
    tool_errors: tools.filter((t) => t.meta?.outcome && t.meta.outcome !== 'ok').length,
    forced_final: o.trace.forced_final,
    usage: o.prediction.usage,
    model_latency_ms: calls.reduce((s, c) => s + c.latencyMs, 0),
    wall_ms: o.trace.wall_ms,
    retries: calls.reduce((s, c) => s + Math.max(0, c.attempts - 1), 0),
  };
}

export function metaFromFinished(f: Finished, resumed = true): ToolhopMeta {
  const r = f.result;
  const p = f.prediction;
  return {
    suite: 'toolhop',
    id: r.id,
    trial: r.trial,
    error: r.error,
    correct: r.correct,
    rule: r.rule,
    hops: r.hops,
    domain: r.domain,
    answer_type: r.answer_type,
    gold: r.gold_answer,
    predicted: r.predicted_answer,
    turns: p?.turns ?? 0,
    tool_calls: p?.tool_calls ?? 0,
    tool_errors: 0,
    forced_final: false,
    usage: p?.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    model_latency_ms: 0,
    wall_ms: 0,
    retries: 0,
    resumed,
  };
}
