import { z } from 'zod';
import type { InstanceMetaBase } from '../kit/types.ts';
import { Usage } from '../model/types.ts';
import type { Prediction, Result } from './records.ts';
import type { ToolhopOutcome } from './run-instance.ts';

/** What a ToolHop test leaves in `task.meta.toolgauge` (the reporter aggregates only from this). */
export interface ToolhopMeta extends InstanceMetaBase {
  suite: 'toolhop';
  correct: boolean;
  rule: 'literal' | 'substring' | 'tool_result' | null;
  hops: number;
  domain: string;
  answer_type: string;
  gold: string;
  predicted: string;
  turns: number;
  tool_calls: number;
  tool_errors: number;
  forced_final: boolean;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  model_latency_ms: number;
  wall_ms: number;
  retries: number;
  /** Model requests of the whole run (all agents of a team). */
  model_calls?: number;
  /** Which sandbox ran the row's tools (`null`: none could — an environment error); absent where no tool ran. */
  sandbox?: 'pyodide' | 'python' | null;
  /** The imports that sent the row to CPython under `--sandbox auto`. */
  sandbox_needs?: string[];
  /** A team's figures: its size, who answered, and how many hand-off reports parsed. */
  team?: { topology: string; agents: number; answered_by: string | null; reports: number; parsed: number } | null;
}

/**
 * ToolhopMeta as a schema: what a journal line read back (resume, a -t re-run) must hold, with the same usage schema
 * as predictions.jsonl. The kit checks its own fields (harness/kit/journal.ts); extra fields pass through.
 */
export const ToolhopMetaSchema = z
  .object({
    suite: z.literal('toolhop'),
    correct: z.boolean(),
    rule: z.enum(['literal', 'substring', 'tool_result']).nullable(),
    hops: z.number().int().min(0),
    domain: z.string(),
    answer_type: z.string(),
    gold: z.string(),
    predicted: z.string(),
    turns: z.number().int().min(0),
    tool_calls: z.number().int().min(0),
    tool_errors: z.number().int().min(0),
    forced_final: z.boolean(),
    usage: Usage,
    model_latency_ms: z.number().min(0),
    wall_ms: z.number().min(0),
    retries: z.number().int().min(0),
    model_calls: z.number().int().min(0).optional(),
    sandbox: z.enum(['pyodide', 'python']).nullable().optional(),
    sandbox_needs: z.array(z.string()).optional(),
    team: z
      .object({
        topology: z.string(),
        agents: z.number(),
        answered_by: z.string().nullable(),
        reports: z.number(),
        parsed: z.number(),
      })
      .nullable()
      .optional(),
  })
  .passthrough();

/** Why a row did not pass, in one line (the failing-instances list of the report). */
export function reasonOf(m: Pick<ToolhopMeta, 'error' | 'correct' | 'gold' | 'predicted'>): string | null {
  if (m.error) return m.error;
  if (m.correct) return null;
  return `wrong answer: gold '${short(m.gold)}', predicted '${short(m.predicted)}'`;
}

function short(s: string): string {
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}

/** The test meta of a ToolHop instance from a fresh outcome. */
export function metaFromOutcome(o: ToolhopOutcome, trace: string | null): ToolhopMeta {
  const tools = o.trace.tool_executions as Array<{ meta?: { outcome?: string } }>;
  const calls = o.trace.model_calls as Array<{ latencyMs: number; attempts: number }>;
  const m: ToolhopMeta = {
    ...fromRecords(o.result, o.prediction),
    tool_errors: tools.filter((t) => t.meta?.outcome && t.meta.outcome !== 'ok').length,
    forced_final: o.trace.forced_final,
    model_latency_ms: calls.reduce((s, c) => s + c.latencyMs, 0),
    wall_ms: o.trace.wall_ms,
    retries: calls.reduce((s, c) => s + Math.max(0, c.attempts - 1), 0),
    model_calls: calls.length,
    trace,
    ...(o.trace.sandbox !== undefined ? { sandbox: o.trace.sandbox, sandbox_needs: o.trace.sandbox_needs ?? [] } : {}),
  };
  return m;
}

/** The meta from the files alone (rescoring a folder): what the files do not hold is zero. */
export function fromRecords(r: Result, p: Prediction | undefined): ToolhopMeta {
  const base = { error: r.error, correct: r.correct, gold: r.gold_answer, predicted: r.predicted_answer };
  return {
    suite: 'toolhop',
    id: r.id,
    trial: r.trial,
    ...base,
    pass: r.correct && !r.error,
    reason: reasonOf(base),
    rule: r.rule,
    hops: r.hops,
    domain: r.domain,
    answer_type: r.answer_type,
    turns: p?.turns ?? 0,
    tool_calls: p?.tool_calls ?? 0,
    tool_errors: 0,
    forced_final: false,
    usage: p?.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    model_latency_ms: 0,
    wall_ms: 0,
    retries: 0,
  };
}
