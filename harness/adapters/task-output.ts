import { z } from 'zod';
import type { ChatMessage } from '../core/chat.ts';
import { extractAnswer } from '../kit/eval/tool-loop.ts';
import type { TaskOutput, ToolCallRecord } from '../kit/eval/types.ts';
import type { Usage } from '../model/types.ts';

/** What an SDK's tool value becomes in a record: a string stays as it is, anything else is its JSON. */
export function asText(x: unknown): string {
  return typeof x === 'string' ? x : (JSON.stringify(x ?? null) ?? String(x));
}

/**
 * One tool call as the scorers read it. `input` is the SDK's parsed arguments, or the raw text when the model's
 * arguments did not parse (then `arguments` is null, as with `toolLoop`).
 */
export function toolCallRecord(name: string, input: unknown, result: unknown, error: string | null): ToolCallRecord {
  const argumentsJson = typeof input === 'string' ? input : asText(input ?? {});
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    parsed = null;
  }
  const args =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  return { name, arguments: args, argumentsJson, result: error ? '' : asText(result), error };
}

/** The standard output of a finished agent run: the final text is the last assistant message's unless given. */
export function standardOutput(o: {
  messages: ChatMessage[];
  toolCalls: ToolCallRecord[];
  usage: Usage;
  turns: number;
  output?: string;
}): TaskOutput {
  const last = [...o.messages].reverse().find((m) => m.role === 'assistant' && m.content);
  const output = o.output ?? last?.content ?? '';
  return {
    output,
    answer: extractAnswer(output),
    toolCalls: o.toolCalls,
    messages: o.messages,
    usage: o.usage,
    turns: o.turns,
  };
}

/** A token count an SDK reported (it may be undefined or not a count): a whole number, else 0. */
export const count = (n: unknown): number => (typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0);

/** The input as the opening user message, when the SDK's request is not at hand. */
export function inputMessages(input: unknown): ChatMessage[] {
  return typeof input === 'string' ? [{ role: 'user', content: input }] : [];
}

/** A chat request body as sent (a JSON string, or an object): its messages are read, the rest ignored. */
const RequestMessages = z.object({
  messages: z.array(
    z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.unknown() }).passthrough(),
  ),
});

/** The messages before the model's first reply, in the OpenAI chat shape, when the request body holds them. */
export function promptOf(body: unknown): ChatMessage[] | undefined {
  let json = body;
  if (typeof body === 'string') {
    try {
      json = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  const r = RequestMessages.safeParse(json);
  if (!r.success) return undefined;
  return r.data.messages.map((m) => {
    const { content, ...rest } = m;
    return { ...rest, content: typeof content === 'string' || content === null ? content : asText(content) };
  }) as ChatMessage[];
}
