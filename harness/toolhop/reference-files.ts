import type { ChatMessage } from '../core/chat.ts';
import { JsonFloat } from '../core/json-float.ts';
import type { ToolhopOutcome } from './run-instance.ts';
import type { ToolhopTeamTrace } from './team.ts';
import { teamResultFields } from './team-lines.ts';
import { referenceToolCallJson } from './transcript-call.ts';

/**
 * The output lines in the reference runner's shape (its `run_batch`/`run_one`), so a script written for its
 * predictions.jsonl and results.jsonl reads toolgauge's unchanged: the dataset's id type (integers stay integers),
 * `idx`, its field names and telemetry counts — plus toolgauge's own fields (rule, trial, hops, domain …).
 */

/**
 * What the outcome does not hold: the dataset's raw id, the model, the cell's style (the reference writes the same
 * string it names the output folder by, `styleOf` in grid.ts), the team size and the run's model calls.
 */
export interface LineContext {
  rawId: string | number;
  model: string;
  style: string;
  agents: number;
  modelCalls: number;
}

export function predictionLine(o: ToolhopOutcome, c: LineContext) {
  const p = o.prediction;
  return {
    idx: c.rawId,
    id: c.rawId,
    question: p.question,
    predicted_answer: p.predicted_answer,
    model_name_or_path: c.model,
    gold_answer: p.gold_answer,
    final_message: p.final_message,
    previous_tool_content: p.previous_tool_content,
    turns: p.turns,
    tool_calls: p.tool_calls,
    usage: p.usage,
    error: p.error,
    error_kind: p.error_kind,
    trial: p.trial,
    hops: p.hops,
    domain: p.domain,
    answer_type: p.answer_type,
  };
}

export function resultLine(o: ToolhopOutcome, c: LineContext) {
  const r = o.result;
  const u = o.prediction.usage;
  return {
    id: c.rawId,
    idx: c.rawId,
    question: o.prediction.question,
    gold_answer: r.gold_answer,
    style: c.style,
    // Rounded to 0.1 s and written as a float (`2.0`), as the reference writes `round(float(solve_s), 1)`.
    solve_s: new JsonFloat(Math.round((o.trace.wall_ms / 1000) * 10) / 10),
    predicted_answer: r.predicted_answer,
    answer_correct: r.correct ? 1 : 0,
    correct: r.correct,
    turns: o.prediction.turns,
    tool_calls: o.prediction.tool_calls,
    n_agents: c.agents,
    // A vote team's winner, vote buckets and voters, under the reference's names.
    ...teamResultFields((o.trace as Partial<ToolhopTeamTrace>).team, r.gold_answer),
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens,
    n_llm_calls: c.modelCalls,
    n_tool_calls: o.prediction.tool_calls,
    error: r.error,
    rule: r.rule,
    trial: r.trial,
    hops: r.hops,
    domain: r.domain,
    answer_type: r.answer_type,
  };
}

/** The results fields the reference writes as Python floats: a rewritten line keeps them floats. */
export const RESULT_FLOAT_FIELDS = ['solve_s'] as const;

/** A results line read back, with its float fields marked again so that writing it keeps them floats. */
export function withResultFloats<T extends Record<string, unknown>>(line: T): T {
  const out: Record<string, unknown> = { ...line };
  for (const k of RESULT_FLOAT_FIELDS) if (typeof out[k] === 'number') out[k] = new JsonFloat(out[k]);
  // A vote team's voters carry their own solve_s.
  for (const k of ['per_agent', 'per_peer'])
    if (Array.isArray(out[k])) out[k] = (out[k] as unknown[]).map((a) => (isRecord(a) ? withResultFloats(a) : a));
  return out as T;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The reference's text transcript (`traces/<id>.txt`): `=== ROLE ===`, the content, `[tool_call] {json}` lines
 * written as Python's json writes them (transcript-call.ts).
 */
export function transcriptText(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => {
      const lines = [`=== ${m.role.toUpperCase()} ===`];
      if (m.content) lines.push(String(m.content));
      for (const tc of m.tool_calls ?? []) lines.push(`[tool_call] ${referenceToolCallJson(tc)}`);
      return `${lines.join('\n')}\n\n`;
    })
    .join('');
}

/** The final assistant message and the last tool result before it, read back from a text transcript. */
export function readTranscript(text: string): { finalMessage: string; previousToolContent: string } {
  const blocks: Array<{ role: string; lines: string[] }> = [];
  for (const line of text.split('\n')) {
    const head = /^=== ([A-Z]+) ===$/.exec(line);
    if (head) blocks.push({ role: head[1]!.toLowerCase(), lines: [] });
    else if (blocks.length && !line.startsWith('[tool_call] ')) blocks.at(-1)!.lines.push(line);
  }
  const content = (b: { lines: string[] }) => b.lines.join('\n').replace(/\n+$/, '');
  // As the reference scores: the last assistant message with content, and the last tool result before the final
  // assistant turn.
  const finalMessage = [...blocks].reverse().find((b) => b.role === 'assistant' && content(b));
  let previousToolContent = '';
  let seenAssistant = false;
  for (let i = blocks.length - 1; i > 0; i--) {
    if (blocks[i]!.role === 'assistant') seenAssistant = true;
    else if (seenAssistant && blocks[i]!.role === 'tool') {
      previousToolContent = content(blocks[i]!);
      break;
    }
  }
  return { finalMessage: finalMessage ? content(finalMessage) : '', previousToolContent };
}
