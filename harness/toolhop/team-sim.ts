import type { ChatMessage, OpenAITool } from '../core/chat.ts';
import {
  delegationWorkers,
  renderReport,
  requestedCommFormat,
  type CommFormat,
  type Report,
} from '../agent/team/index.ts';
import { HttpError, type Responder } from '../sim/server.ts';
import type { PolicySpec } from '../sim/policy-spec.ts';
import type { SimCallContext, SimReply } from '../sim/server.ts';
import { toolhopReply } from './sim-policy.ts';
import { FINALIZER_SYSTEM_PROMPT, OUTPUT_CONTRACT } from './prompts.ts';
import type { ToolhopRow } from './row.ts';
import { toolEntries } from './tools.ts';

/**
 * The simulated model on ToolHop team requests: pure functions of the policy, the row (known to the simulator,
 * never read from the request) and the request. What a request asks for is read from the protocol text the team
 * harness writes around the role prompts, not from the role prompts themselves, so it still works when an
 * optimizer rewrites the prompts:
 *   - a delegation step: the user message carries DELEGATION_MARKER and a `Workers:` line → one
 *     `<delegate to="…">` block per worker;
 *   - the report format: the system prompt's `INTER-AGENT REPORT FORMAT: <name>` line (none: freeform);
 *   - whether the role answers for the team: the system prompt carries the `<answer>` output contract.
 * The agent id header only seeds the coin (`sim:coin`: one coin per instance, agent and trial, and the same wrong
 * value for every agent of an instance, so votes follow binomial arithmetic). Tool calls and the answered value
 * come from the single-agent policy unchanged, so a single-agent request (answer contract, no report format) gets
 * exactly the single-agent reply, and this function can answer every ToolHop request.
 *
 * Malformed reports (the parse-rate path): `sim:fault?cause=format_failure`, or a `sim:garbled` policy once it is
 * registered, answers like the oracle but writes every report and delegation so that it does not parse.
 */
export function teamToolhopReply(
  spec: PolicySpec,
  row: ToolhopRow,
  messages: ChatMessage[],
  tools: OpenAITool[] | undefined,
  ctx: SimCallContext,
): SimReply {
  const garble = garbles(spec);
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const workers = delegationWorkers(String(lastUser?.content ?? ''));
  if (workers) return { content: delegations(row, workers, garble) };

  const base = toolhopReply(spec, row, messages, tools, ctx);
  if (base.tool_calls?.length) return base;
  const tagged = /^<answer>([\s\S]*)<\/answer>$/.exec(base.content ?? '');
  const system = String(messages.find((m) => m.role === 'system')?.content ?? '');
  // The extra final-answer call and untagged policies (no `<answer>` to report) stay as they are.
  if (!tagged || system === FINALIZER_SYSTEM_PROMPT) return base;
  const value = tagged[1]!;
  // A role answers for the team when its prompt carries the output contract; a request from no team role (another
  // runner, whose prompt toolgauge did not write, or toolgauge's single agent) answers too.
  const answers = system.includes(OUTPUT_CONTRACT) || ctx.agent === '0' || ctx.agent === 'solver';
  const format = requestedCommFormat(system);
  if (format === 'freeform' && answers) return base;
  const report = reportText(format, reportOf(messages, value), garble);
  return { content: answers ? `${report}\n\n<answer>${value}</answer>` : report };
}

export function garbles(spec: PolicySpec): boolean {
  return (spec.name === 'fault' && spec.cause === 'format_failure') || (spec.name as string) === 'garbled';
}

function delegations(row: ToolhopRow, workers: string[], garble: boolean): string {
  const chain = toolEntries(row)
    .map((e) => e.runtimeName)
    .join(', then ');
  return workers
    .map((w) => {
      const body = `Answer "${row.question}" by calling ${chain}, each with the previous result, and report every result.`;
      // A misspelt attribute: the block is there, but no parser that follows the protocol accepts it.
      return garble ? `<delegate worker=${w}>${body}` : `<delegate to="${w}">${body}</delegate>`;
    })
    .join('\n');
}

/** The report the oracle writes: the tool chain it ran and the value it leads to. */
function reportOf(messages: ChatMessage[], value: string): Report {
  const called = messages.flatMap((m) =>
    m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.function.name) : [],
  );
  const results = messages.filter((m) => m.role === 'tool').map((m) => String(m.content ?? '').slice(0, 200));
  return {
    status: 'completed',
    summary: called.length
      ? `Ran the chain ${called.join(' → ')}; it leads to ${value}.`
      : `Answered ${value} without calling tools.`,
    evidence: results.length
      ? results.map((r, i) => `${called[i] ?? 'tool'} returned ${r}`).join('\n')
      : 'No tool results.',
    confidence: called.length ? 'high' : 'low',
    next: `Use ${value} as the answer.`,
    answer_candidate: value,
  };
}

function reportText(format: CommFormat, r: Report, garble: boolean): string {
  if (format === 'freeform') return `${r.summary}\n${r.evidence}\nCandidate answer: ${r.answer_candidate}`;
  if (!garble) return renderReport(r, format);
  if (format === 'semi_structured') return `STATUS: done\nSUMMARY: ${r.summary}\n[CONFIDENCE]\nsure`;
  const json = JSON.stringify(r);
  return `<report>\n${json.slice(0, Math.floor(json.length / 2))}`;
}

/** A ToolHop responder for the simulator server that answers single-agent and team requests alike. */
export function toolhopTeamResponder(
  rows: (id: string) => ToolhopRow | undefined | Promise<ToolhopRow | undefined>,
): Responder {
  return {
    chat: async (spec, body, ctx) => {
      const row = await rows(ctx.id);
      if (!row) throw new HttpError(422, `simulator: no ToolHop row '${ctx.id}' was registered`);
      return teamToolhopReply(spec, row, body.messages, body.tools, ctx);
    },
  };
}
