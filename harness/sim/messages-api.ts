// The simulator's Anthropic Messages-API front (POST /v1/messages): the request is checked against the API's
// documented shape, turned into the OpenAI-shaped conversation every responder reads, and the responder's reply is
// answered as a Messages-API message. The schema is written from Anthropic's API reference ("Messages": request
// body, content blocks, tool definitions, response, errors), not from toolgauge's client, so a client that sends
// a wrong shape is refused here with a 400 naming the field, as the real API would.

import { z } from 'zod';
import type { ChatMessage, OpenAITool, ToolCall } from '../core/chat.ts';
import type { ChatBody, SimReply } from './server.ts';

const TextBlock = z.object({ type: z.literal('text'), text: z.string() }).passthrough();
const ImageBlock = z
  .object({ type: z.literal('image'), source: z.object({ type: z.string() }).passthrough() })
  .passthrough();
const ToolUseBlock = z
  .object({
    type: z.literal('tool_use'),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
  })
  .passthrough();
const ToolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(z.union([TextBlock, ImageBlock]))]).optional(),
    is_error: z.boolean().optional(),
  })
  .passthrough();
const ContentBlock = z.discriminatedUnion('type', [TextBlock, ImageBlock, ToolUseBlock, ToolResultBlock]);

const MessageParam = z
  .object({
    role: z.enum(['user', 'assistant']),
    content: z.union([z.string(), z.array(ContentBlock).min(1)]),
  })
  .strict();

const Tool = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, 'tool names are 1–128 letters, digits, _ or -'),
    description: z.string().optional(),
    input_schema: z
      .object({
        type: z.literal('object'),
        properties: z.record(z.string(), z.unknown()).optional(),
        required: z.array(z.string()).optional(),
      })
      .passthrough(),
  })
  .passthrough();

const ToolChoice = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('none') }),
]);

/** The request body of POST /v1/messages (non-streaming), as the API reference documents it. */
export const MessagesRequest = z
  .object({
    model: z.string().min(1),
    max_tokens: z.number().int().min(1),
    messages: z.array(MessageParam).min(1),
    system: z.union([z.string(), z.array(TextBlock)]).optional(),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().min(0).optional(),
    stop_sequences: z.array(z.string()).optional(),
    stream: z.literal(false).optional(),
    metadata: z.object({ user_id: z.string().nullable().optional() }).optional(),
    tools: z.array(Tool).optional(),
    tool_choice: ToolChoice.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.messages[0]?.role !== 'user')
      ctx.addIssue({
        code: 'custom',
        path: ['messages', 0, 'role'],
        message: 'the first message must be a user message',
      });
    // Every tool_use must be answered by a tool_result in the next (user) message, and a tool_result names a tool_use.
    b.messages.forEach((m, i) => {
      if (typeof m.content === 'string') return;
      const uses = m.content.filter((c) => c.type === 'tool_use').map((c) => (c as { id: string }).id);
      if (m.role === 'user' && uses.length)
        ctx.addIssue({
          code: 'custom',
          path: ['messages', i, 'content'],
          message: 'tool_use blocks belong to assistant messages',
        });
      if (m.role === 'assistant' && m.content.some((c) => c.type === 'tool_result'))
        ctx.addIssue({
          code: 'custom',
          path: ['messages', i, 'content'],
          message: 'tool_result blocks belong to user messages',
        });
      if (m.role !== 'assistant' || !uses.length) return;
      const next = b.messages[i + 1];
      if (!next) return;
      const answered =
        typeof next.content === 'string'
          ? []
          : next.content.filter((c) => c.type === 'tool_result').map((c) => (c as { tool_use_id: string }).tool_use_id);
      for (const id of uses)
        if (!answered.includes(id))
          ctx.addIssue({
            code: 'custom',
            path: ['messages', i + 1, 'content'],
            message: `tool_use ${id} has no tool_result in the next message`,
          });
    });
  });
export type MessagesRequest = z.infer<typeof MessagesRequest>;

/** The request's conversation as the OpenAI-shaped ChatBody the responders read. */
export function chatBodyOfMessages(b: MessagesRequest): ChatBody {
  const messages: ChatMessage[] = [];
  const system = typeof b.system === 'string' ? b.system : b.system?.map((t) => t.text).join('\n');
  if (system) messages.push({ role: 'system', content: system });
  for (const m of b.messages) {
    const blocks = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    if (m.role === 'assistant') {
      const text = blocks
        .filter((c) => c.type === 'text')
        .map((c) => (c as { text: string }).text)
        .join('');
      const calls: ToolCall[] = blocks
        .filter((c) => c.type === 'tool_use')
        .map((c) => {
          const u = c as { id: string; name: string; input: Record<string, unknown> };
          return { id: u.id, type: 'function', function: { name: u.name, arguments: JSON.stringify(u.input) } };
        });
      messages.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const c of blocks) {
      if (c.type === 'tool_result') {
        const r = c as { tool_use_id: string; content?: string | Array<{ type: string; text?: string }> };
        const content = typeof r.content === 'string' ? r.content : (r.content ?? []).map((x) => x.text ?? '').join('');
        messages.push({ role: 'tool', tool_call_id: r.tool_use_id, content });
      } else if (c.type === 'text') messages.push({ role: 'user', content: (c as { text: string }).text });
    }
  }
  const tools: OpenAITool[] | undefined = b.tools?.map((t) => ({
    type: 'function',
    function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.input_schema },
  }));
  return { model: b.model, messages, ...(tools ? { tools } : {}) };
}

/** A responder's reply as a Messages-API response. */
export function messagesResponse(
  model: string,
  reply: SimReply,
  inputTokens: number,
  outputTokens: number,
  n: number,
): Record<string, unknown> {
  const calls = reply.tool_calls ?? [];
  const content: Array<Record<string, unknown>> = [];
  if (reply.content) content.push({ type: 'text', text: reply.content });
  for (const c of calls) {
    let input: unknown;
    try {
      input = JSON.parse(c.function.arguments || '{}');
    } catch {
      input = {};
    }
    content.push({
      type: 'tool_use',
      id: c.id,
      name: c.function.name,
      input: input && typeof input === 'object' && !Array.isArray(input) ? input : {},
    });
  }
  const stop_reason = reply.finish_reason === 'length' ? 'max_tokens' : calls.length ? 'tool_use' : 'end_turn';
  return {
    id: `msg_sim_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason,
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: outputTokens },
  };
}

/** An error in the API's shape (`{type: "error", error: {type, message}}`). */
export function messagesError(type: string, message: string): Record<string, unknown> {
  return { type: 'error', error: { type, message } };
}
