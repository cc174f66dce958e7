import { z } from 'zod';
import type { CaseProblem } from './contract.ts';
import type { Section, ToolCallView, TurnView } from './model.ts';
import { readField } from './values.ts';

/**
 * A transcript as the viewer shows it: the OpenAI-style messages every suite stores in its traces, with each tool
 * call's arguments pretty-printed, each tool result marked when it was cut to a budget, and each assistant turn
 * given the tokens, latency and retries of the request that produced it. Pure: the schemas below read what a trace
 * holds, leniently (extra fields are kept out of the way, a missing one is simply not shown).
 */

const ToolCallJson = z
  .object({
    id: z.string().optional(),
    function: z.object({ name: z.string(), arguments: z.unknown().optional() }).passthrough(),
  })
  .passthrough();

export const MessageJson = z
  .object({
    role: z.string(),
    content: z.unknown().optional(),
    tool_calls: z.array(ToolCallJson).nullable().optional(),
    tool_call_id: z.string().optional(),
    name: z.string().optional(),
  })
  .passthrough();
export type MessageJson = z.infer<typeof MessageJson>;

export const ModelCallJson = z
  .object({
    agent: z.string().optional(),
    turn: z.number().optional(),
    purpose: z.string().optional(),
    latencyMs: z.number().optional(),
    attempts: z.number().optional(),
    retried: z.array(z.string()).optional(),
    cached: z.boolean().optional(),
    finishReason: z.string().nullable().optional(),
    usage: z
      .object({
        prompt_tokens: z.number().optional(),
        completion_tokens: z.number().optional(),
        total_tokens: z.number().optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();
export type ModelCallJson = z.infer<typeof ModelCallJson>;

/** The markers toolgauge writes where it cut a string: a tool result over its budget, a stored string over the cap. */
const TRUNCATED = /\[truncated(?: tool result)?: \d+ (?:chars|characters)\]/;

export function isTruncated(text: string | null): boolean {
  return !!text && TRUNCATED.test(text);
}

/** JSON arguments pretty-printed; anything else (a model's malformed JSON is data) exactly as written. */
export function prettyArgs(args: unknown): string {
  if (typeof args !== 'string') return JSON.stringify(args ?? null, null, 2);
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

/** Message content as text: a string, or the text parts of a content array, else its JSON. */
export function contentText(content: unknown): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  if (
    Array.isArray(content) &&
    content.every((p) => p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string')
  ) {
    return content.map((p) => (p as { text: string }).text).join('');
  }
  return JSON.stringify(content, null, 2);
}

/** `412 + 36 tokens · 176 ms · 2 attempts (retried: 429) · cached · finish stop`. */
export function callStats(c: ModelCallJson): string {
  const parts: string[] = [];
  if (c.usage) parts.push(`${c.usage.prompt_tokens ?? '?'} + ${c.usage.completion_tokens ?? '?'} tokens`);
  if (c.latencyMs !== undefined) parts.push(`${Math.round(c.latencyMs)} ms`);
  if (c.attempts !== undefined)
    parts.push(
      `${c.attempts} attempt${c.attempts === 1 ? '' : 's'}${c.retried?.length ? ` (retried: ${c.retried.join(', ')})` : ''}`,
    );
  if (c.cached) parts.push('cached');
  if (c.purpose && c.purpose !== 'turn') parts.push(c.purpose.replace('_', ' '));
  if (c.finishReason) parts.push(`finish ${c.finishReason}`);
  return parts.join(' · ');
}

/**
 * The turns of a conversation. `modelCalls` are the requests of this one agent in order: the n-th assistant message
 * is the answer to the n-th request.
 */
export function turnsOf(messages: readonly MessageJson[], modelCalls: readonly ModelCallJson[] = []): TurnView[] {
  let assistant = 0;
  return messages.map((m) => {
    const text = contentText(m.content);
    const calls: ToolCallView[] = (m.tool_calls ?? []).map((c) => ({
      name: c.function.name,
      args: prettyArgs(c.function.arguments),
      ...(c.id ? { id: c.id } : {}),
    }));
    const turn: TurnView = { role: m.role, text, calls, truncated: m.role === 'tool' && isTruncated(text) };
    if (m.tool_call_id) turn.toolCallId = m.tool_call_id;
    if (m.role === 'assistant') {
      const call = modelCalls[assistant++];
      if (call) turn.stats = callStats(call);
    }
    return turn;
  });
}

/** The per-request table: turn, purpose, tokens, latency, attempts, retries, finish reason. */
export function modelCallsTable(calls: readonly ModelCallJson[], title = 'Model requests'): Section {
  const withAgent = calls.some((c) => c.agent);
  return {
    kind: 'table',
    title,
    head: [
      ...(withAgent ? ['agent'] : []),
      'turn',
      'purpose',
      'prompt tokens',
      'completion tokens',
      'latency ms',
      'attempts',
      'retried',
      'cached',
      'finish',
    ],
    rows: calls.map((c) => [
      ...(withAgent ? [c.agent ?? ''] : []),
      String(c.turn ?? ''),
      c.purpose ?? '',
      String(c.usage?.prompt_tokens ?? ''),
      String(c.usage?.completion_tokens ?? ''),
      c.latencyMs === undefined ? '' : String(Math.round(c.latencyMs)),
      String(c.attempts ?? ''),
      (c.retried ?? []).join(', '),
      c.cached ? 'yes' : '',
      c.finishReason ?? '',
    ]),
  };
}

const Messages = z.array(MessageJson);
const ModelCalls = z.array(ModelCallJson);

/**
 * The conversation of one agent as sections: its messages, and the table of the requests that produced its assistant
 * turns. Messages or requests that do not read note a problem under `prefix` (`trace.messages`, …) and show nothing.
 */
export function conversationSections(
  title: string,
  messages: unknown,
  modelCalls: unknown,
  prefix: string,
  problems: CaseProblem[],
): Section[] {
  if (messages === undefined) return [];
  const ms = readField(Messages, messages, `${prefix}.messages`, problems);
  const calls =
    modelCalls === undefined ? [] : (readField(ModelCalls, modelCalls, `${prefix}.model_calls`, problems) ?? []);
  if (!ms) return [];
  const out: Section[] = [{ kind: 'conversation', title, turns: turnsOf(ms, calls) }];
  if (calls.length) out.push(modelCallsTable(calls, `${title}: model requests`));
  return out;
}
