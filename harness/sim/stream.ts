import type { ServerResponse } from 'node:http';
import type { ToolCall } from '../core/chat.ts';

/** The parts of a whole chat completion that its stream repeats. */
export interface StreamedCompletion {
  id: string;
  created: number;
  model: string;
  choices: Array<{
    message: { role: string; content: string | null; tool_calls?: ToolCall[] };
    finish_reason: string;
  }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/**
 * A chat completion as OpenAI streams it (`stream: true`): server-sent events, one chunk with the role and the
 * text, one per tool call (id, name and the whole arguments), one with the finish reason, the usage when the request
 * asked for it (`stream_options.include_usage`), then `[DONE]`. The simulator's answer is whole; only the framing
 * is a stream's, so a client that streams (the AI SDK's `streamText`) can be pointed at it.
 */
export function sendChatStream(res: ServerResponse, c: StreamedCompletion, includeUsage: boolean): void {
  const choice = c.choices[0]!;
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => ({
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...extra,
  });
  const events: unknown[] = [
    chunk({ role: 'assistant', content: choice.message.content ?? '' }, null),
    ...(choice.message.tool_calls ?? []).map((tc, index) => chunk({ tool_calls: [{ index, ...tc }] }, null)),
    chunk({}, choice.finish_reason),
    ...(includeUsage ? [{ ...chunk({}, null), choices: [], usage: c.usage }] : []),
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(`${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`);
}
