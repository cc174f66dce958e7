import { z } from 'zod';
import { redact, redactCut } from '../core/redact.ts';
import type { ToolhopMeta } from '../toolhop/meta.ts';
import type { RolloutFeedback } from './types.ts';

/**
 * The textual feedback of one ToolHop rollout, from what the suite already records (its meta and its trace file):
 * the question, gold vs predicted, which scoring rule credited the answer, tool errors, and which role gave the
 * scored answer — per run of a team, so a reflection on one role can see what that role did. Pure.
 */

const Tool = z
  .object({
    name: z.string().default('?'),
    content: z.string().default(''),
    meta: z.object({ outcome: z.string().optional() }).passthrough().optional(),
  })
  .passthrough();
const Message = z.object({ role: z.string(), content: z.unknown().optional() }).passthrough();
const Run = z
  .object({
    agent: z.string(),
    role: z.string(),
    finalMessage: z.string().default(''),
    error: z.string().nullable().default(null),
    tool_executions: z.array(Tool).default([]),
  })
  .passthrough();
const Trace = z
  .object({
    question: z.string().default(''),
    messages: z.array(Message).default([]),
    tool_executions: z.array(Tool).default([]),
    team: z
      .object({
        answered_by: z.string().nullable().default(null),
        runs: z.array(Run).default([]),
        vote: z
          .object({ counts: z.record(z.string(), z.number()) })
          .passthrough()
          .nullable()
          .default(null),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();

const CLIP = 600;
/** Redacted before the cut, so no secret's beginning is left at it (core/redact.ts). */
const clip = (s: string, n = CLIP) => {
  const r = redact(s);
  return r.length > n ? redactCut(r, n - 1, () => '…') : r;
};

const isToolError = (t: z.infer<typeof Tool>) => !!t.meta?.outcome && t.meta.outcome !== 'ok';

/** Feedback from a rollout's meta and trace (the trace as the suite wrote it; unknown fields are ignored). */
export function toolhopFeedback(meta: ToolhopMeta, traceJson: unknown, singleRole = 'solver'): RolloutFeedback {
  const parsed = Trace.safeParse(traceJson);
  const trace = parsed.success ? parsed.data : Trace.parse({});
  const team = trace.team;
  const runs = team
    ? team.runs.map((r) => ({
        role: r.role,
        agent: r.agent,
        final: clip(r.finalMessage),
        toolErrors: r.tool_executions.filter(isToolError).length,
        error: r.error,
      }))
    : [
        {
          role: singleRole,
          agent: singleRole,
          final: clip(lastAssistant(trace.messages)),
          toolErrors: trace.tool_executions.filter(isToolError).length,
          error: meta.error,
        },
      ];
  const answeredAgent = team ? team.answered_by : singleRole;
  const answeredBy = team ? (team.runs.find((r) => r.agent === answeredAgent)?.role ?? null) : singleRole;
  return {
    question: trace.question || '',
    gold: meta.gold,
    predicted: meta.predicted,
    correct: meta.correct && !meta.error,
    rule: meta.rule,
    error: meta.error,
    toolCalls: meta.tool_calls,
    toolErrors: trace.tool_executions
      .filter(isToolError)
      .slice(0, 3)
      .map((t) => clip(`${t.name}: ${t.content}`, 200)),
    answeredBy,
    runs,
    vote: team?.vote?.counts ?? null,
    forcedFinal: meta.forced_final,
  };
}

function lastAssistant(messages: ReadonlyArray<{ role: string; content?: unknown }>): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant' && typeof m.content === 'string' && m.content.trim()) return m.content;
  }
  return '';
}

const RULES: Record<string, string> = {
  literal: "rule 1-2 'literal' (the tagged answer equals the gold as a Python literal)",
  substring: "rule 2 'substring' (the gold appears in the tagged answer)",
  tool_result: "rule 3 'tool_result' (the gold appears in the last tool result, not in the answer)",
};

/** How the scorer judged the answer, in words. */
export function scoringLine(f: Pick<RolloutFeedback, 'correct' | 'rule' | 'error'>): string {
  if (f.error) return `not scored: harness error (${clip(f.error, 200)})`;
  if (f.correct) return `correct, credited by ${RULES[f.rule ?? ''] ?? `rule '${f.rule}'`}`;
  return 'wrong: no rule matched (not the gold as a literal, gold not in the tagged answer, gold not in the last tool result)';
}
