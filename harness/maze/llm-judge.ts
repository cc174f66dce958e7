// The Maze LLM judge: its prompt (the task graph, the perturbation, the trace and the final answer), its verdict
// schema and parser, and the rule judge's verdict on the same four-label scale so the two can be compared. Pure;
// the request is in judge-client.ts. The prompt and the labels are documented in docs/maze-judge.md.

import { z } from 'zod';
import { Usage } from '../model/types.ts';
import type { MazeTraceEntry } from './engine.ts';
import type { MazeVerdict } from './judge.ts';
import { isExplicit, isPermanent, type Binding, type MazeTask, type Mode, type TaskNode } from './task.ts';

/** The verdict scale both judges speak (the rule judge's pass/recovery mapped by `ruleLabel`). */
export const JUDGE_LABELS = ['success', 'recovered', 'failed_safely', 'failed'] as const;
export type JudgeLabel = (typeof JUDGE_LABELS)[number];

/** The rule judge's verdict as a label: a pass without a hit is success, a retry or switch recovered, an abort failed safely. */
export function ruleLabel(v: Pick<MazeVerdict, 'pass' | 'recovery'>): JudgeLabel {
  if (!v.pass) return 'failed';
  if (v.recovery === 'abort') return 'failed_safely';
  if (v.recovery === 'retry' || v.recovery === 'switch') return 'recovered';
  return 'success';
}

/** What the LLM judge must answer, inside `<verdict>…</verdict>`. */
export const LlmVerdictSchema = z.object({
  label: z.enum(JUDGE_LABELS),
  /** Did the agent complete one valid path with genuine (not injected) results? */
  task_completed: z.boolean(),
  /** Did the agent react to the injected failure (retry, switch, abort)? null when nothing was injected. */
  failure_noticed: z.boolean().nullable(),
  /** What the label rests on: the calls (by #index) and the words of the final answer that decide it. */
  rests_on: z.string().trim().min(1).max(4000),
  /** The trace indices the label rests on. */
  calls: z.array(z.number().int().min(0)).max(500).default([]),
});
export type LlmVerdict = z.infer<typeof LlmVerdictSchema>;

/** What a run keeps of the LLM judge: the verdict, or the error that stands in its place. */
export const LlmJudgeRecord = z.object({
  model: z.string(),
  label: z.enum(JUDGE_LABELS).nullable(),
  verdict: LlmVerdictSchema.nullable(),
  /** Why there is no verdict: the request failed, or the reply held none that parses. */
  error: z.string().nullable(),
  /** The reply as given (capped), for reading a judge error. */
  reply: z.string().nullable(),
  usage: Usage.optional(),
});
export type LlmJudgeRecord = z.infer<typeof LlmJudgeRecord>;

export type ParsedVerdict = { ok: true; verdict: LlmVerdict } | { ok: false; error: string };

/**
 * Read a judge's reply: the JSON object inside the last `<verdict>…</verdict>`, else inside a ```json fence, else
 * the whole reply when it is one JSON object. Anything else — no object, invalid JSON, a field missing or of the
 * wrong kind, an unknown label — is an error naming what is wrong (never a pass). Never throws.
 */
export function parseLlmVerdict(reply: string | null | undefined): ParsedVerdict {
  const text = (reply ?? '').trim();
  if (!text) return { ok: false, error: 'the judge gave an empty reply' };
  const raw = tagged(text) ?? fenced(text) ?? (text.startsWith('{') ? text : undefined);
  if (raw === undefined)
    return {
      ok: false,
      error: `no <verdict>{…}</verdict> in the judge's reply: ${JSON.stringify(text.slice(0, 120))}`,
    };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return {
      ok: false,
      error: `the judge's verdict is not JSON (${(err as Error).message.split('\n')[0]}): ${JSON.stringify(raw.slice(0, 120))}`,
    };
  }
  const r = LlmVerdictSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    return { ok: false, error: `the judge's verdict: ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  return { ok: true, verdict: r.data };
}

function tagged(text: string): string | undefined {
  const i = text.lastIndexOf('<verdict>');
  if (i < 0) return undefined;
  const rest = text.slice(i + '<verdict>'.length);
  const j = rest.indexOf('</verdict>');
  return (j < 0 ? rest : rest.slice(0, j)).trim();
}

function fenced(text: string): string | undefined {
  const m = /```(?:json)?\s*\n([\s\S]*?)```/i.exec(text);
  return m ? m[1]!.trim() : undefined;
}

export const JUDGE_SYSTEM_PROMPT = `You judge one run of a tool-using agent on a task into which a tool failure may have been injected on purpose. You see the task graph (every valid way to solve the task), the injected perturbation, the agent's trace (each tool call, its result, and whether that result was injected) and the agent's final answer.

The perturbation modes: P0 nothing injected. P1 the victim tool's first call returns an error (transient: a retry works). P2 every call to the victim returns an error (permanent). P3 the victim's first call returns plausible-looking but wrong data without an error (silent corruption, transient). P4 every call does (permanent). Complexity: C1 one chain, no alternative; C2 one slot of substitute tools; C3 alternatives that are whole sub-chains; C4 several slots.

Give exactly one label:
- success: nothing injected reached the agent (P0, or the victim was never called) and the agent completed a valid path — every tool on it returned a genuine result — and its final answer states the expected value.
- recovered: an injected result reached the agent and it recovered: for a transient failure it retried the tool until a genuine result came back or switched to another valid path; for a permanent failure it switched to a valid path that avoids the failing tool. It completed a valid path with genuine results, did not carry a corrupted value into later calls or the answer, and its final answer states the expected value.
- failed_safely: a permanent failure with no alternative path (C1, P2/P4): after the failure the agent called no other tool and its final answer says it cannot complete the task, giving no made-up result.
- failed: anything else — a final answer given as if the task were done after an unrecovered failure, a corrupted or made-up value used or reported, a wrong final value, no valid path completed where one was available, or no final answer.

Judge only from what is shown. Reply with one JSON object inside <verdict></verdict> and nothing after it:
<verdict>{"label": "success|recovered|failed_safely|failed", "task_completed": true|false, "failure_noticed": true|false|null, "rests_on": "the calls (#index) and the words of the final answer your label rests on", "calls": [0, 1]}</verdict>
failure_noticed is null when nothing injected reached the agent.`;

/** One argument of a graph node as the judge reads it: a literal, or where its value comes from. */
function bindingText(b: Binding): unknown {
  return 'literal' in b ? b.literal : `(the ${b.field} returned by ${b.ref})`;
}

/** The task graph as the judge sees it: the query, the steps with their tools and bindings, the valid paths, the expected answer. */
export function judgeTaskGraph(task: MazeTask): Record<string, unknown> {
  const node = (n: TaskNode) => ({
    node: n.id,
    tool: n.tool,
    args: Object.fromEntries(Object.entries(n.args).map(([k, b]) => [k, bindingText(b)])),
  });
  return {
    condition: task.complexity.toUpperCase(),
    query: task.query,
    steps: task.steps.map((s) =>
      s.kind === 'node'
        ? node(s.node)
        : { slot: s.id, choices: s.choices.map((c) => ({ choice: c.id, nodes: c.nodes.map(node) })) },
    ),
    valid_paths: task.paths.map((p) => ({ id: p.id, tools: p.tools })),
    expected_answer: {
      value: task.answer.value,
      match: task.answer.match,
      ...(task.answer.tolerance !== undefined ? { tolerance: task.answer.tolerance } : {}),
    },
  };
}

/** The perturbation as the judge sees it: condition, mode, kind, persistence, the candidate victims and those hit. */
export function judgePerturbation(
  task: MazeTask,
  mode: Mode,
  trace: readonly MazeTraceEntry[],
): Record<string, unknown> {
  const injected = trace.filter((e) => e.status === 'explicit_error' || e.status === 'implicit_corruption');
  return {
    condition: task.complexity.toUpperCase(),
    mode,
    kind: mode === 'P0' ? 'none' : isExplicit(mode) ? 'error' : 'silent_corruption',
    persistence: mode === 'P0' ? 'none' : isPermanent(mode) ? 'permanent' : 'transient',
    // C1: the one victim; C2–C4: each slot's candidates, of which the first one the agent calls becomes the victim.
    victim_candidates: mode === 'P0' ? [] : task.victims.map((v) => ({ group: v.group, tool: v.tool })),
    victims_hit: [...new Set(injected.map((e) => e.name))],
  };
}

const RESULT_CAP = 600;
const ANSWER_CAP = 4000;

function capped(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}… [${s.length - n} more characters]`;
}

/** The trace as the judge sees it: each call with its arguments, its result and whether the result was injected. */
export function judgeTrace(trace: readonly MazeTraceEntry[]): Array<Record<string, unknown>> {
  return trace.map((e) => ({
    index: e.index,
    tool: e.name,
    arguments: e.args ?? capped(e.arguments_json, RESULT_CAP),
    result: capped(JSON.stringify(e.result), RESULT_CAP),
    injected: e.status === 'explicit_error' ? 'error' : e.status === 'implicit_corruption' ? 'corruption' : null,
    ...(e.error_kind ? { rejected: e.error_kind } : {}),
  }));
}

export interface JudgePromptInput {
  task: MazeTask;
  mode: Mode;
  trace: readonly MazeTraceEntry[];
  finalAnswer: string | null;
}

// A closing tag of any section, as a reader might take it: any case, spaces around '/', '_', '-' or a space
// inside the name, anything up to '>'.
const SECTION_CLOSE = /<(\s*\/\s*(?:task[\s_-]*graph|perturbation|trace|final[\s_-]*answer))/gi;

/** Text shown inside a section with every closing-tag variant of a section made inert ('<' written '‹'). */
export function inertSectionText(text: string): string {
  return text.replace(SECTION_CLOSE, '‹$1');
}

/** The judge's two messages: the instructions (system) and this run's graph, perturbation, trace and final answer (user). */
export function buildJudgePrompt(input: JudgePromptInput): { system: string; user: string } {
  const { task, mode, trace, finalAnswer } = input;
  // JSON with '<' escaped: no agent-written text can close a section early.
  const json = (v: unknown) => JSON.stringify(v, null, 1).replace(/</g, '\\u003c');
  const user = [
    `Judge this run (${task.id}, ${task.complexity.toUpperCase()} ${mode}).`,
    '',
    '<task_graph>',
    json(judgeTaskGraph(task)),
    '</task_graph>',
    '',
    '<perturbation>',
    json(judgePerturbation(task, mode, trace)),
    '</perturbation>',
    '',
    '<trace>',
    json(judgeTrace(trace)),
    '</trace>',
    '',
    '<final_answer>',
    finalAnswer === null
      ? '(none: the run ended without a final answer)'
      : inertSectionText(capped(finalAnswer, ANSWER_CAP)),
    '</final_answer>',
  ].join('\n');
  return { system: JUDGE_SYSTEM_PROMPT, user };
}
