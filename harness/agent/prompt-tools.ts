import type { ChatMessage, OpenAITool, ToolCall } from '../core/chat.ts';
import { parseToolCalls, renderToolCalls } from '../parse/index.ts';

/**
 * Prompt-based tool calling, for endpoints or models without native tool calls: the tools are described in the
 * system prompt, the model writes `<tool_call>{json}</tool_call>` in its text (parsed with the probe parsers'
 * lenient tier), and results come back as a user message of `<tool_response>` blocks.
 */
export const TOOLS_OPEN = '<tools>';

export function promptToolInstructions(tools: OpenAITool[]): string {
  return [
    'You can call these tools. Their signatures, as JSON Schema, are inside <tools></tools>:',
    TOOLS_OPEN,
    ...tools.map((t) => JSON.stringify(t.function)),
    '</tools>',
    'To call a tool, write one block per call:',
    '<tool_call>\n{"name": "<tool name>", "arguments": {<arguments as JSON>}}\n</tool_call>',
    'Results come back inside <tool_response></tool_response>. Write no tool_call block when you give your final answer.',
  ].join('\n');
}

/** The calls in an assistant's text, with deterministic ids. */
export function callsFromText(text: string | null | undefined, tools: OpenAITool[], turn: number): ToolCall[] {
  if (!text) return [];
  const r = parseToolCalls(text, { tier: 'lenient', tools: tools.map((t) => t.function) });
  return r.calls.map((c, i) => ({
    id: `call_${turn}_${i}`,
    type: 'function' as const,
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
}

export function toolResponseMessage(results: Array<{ name: string; content: string }>): ChatMessage {
  return {
    role: 'user',
    content: results
      .map((r) => `<tool_response>\n${JSON.stringify({ name: r.name, content: r.content })}\n</tool_response>`)
      .join('\n'),
  };
}

/** The contents of the `<tool_response>` blocks of a user message, in order. */
export function parseToolResponses(text: string): Array<{ name: string; content: string }> {
  const out: Array<{ name: string; content: string }> = [];
  for (const m of text.matchAll(/<tool_response>\s*([\s\S]*?)\s*<\/tool_response>/g)) {
    try {
      const v = JSON.parse(m[1]!) as { name?: unknown; content?: unknown };
      out.push({ name: String(v.name ?? ''), content: String(v.content ?? '') });
    } catch {
      out.push({ name: '', content: m[1]! });
    }
  }
  return out;
}

export function isPromptToolConversation(messages: ChatMessage[], tools: unknown[] | undefined): boolean {
  return (
    (!tools || tools.length === 0) &&
    messages.some((m) => m.role === 'system' && String(m.content ?? '').includes(TOOLS_OPEN))
  );
}

/**
 * Read a prompt-based conversation back as native tool calls (assistant `tool_calls` + `tool` messages), so a
 * policy written for native calls can answer it (the simulator uses this).
 */
export function toNativeConversation(messages: ChatMessage[], tools: OpenAITool[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pending: ToolCall[] = [];
  let turn = 0;
  for (const m of messages) {
    if (m.role === 'assistant') {
      turn++;
      const calls = callsFromText(m.content, tools, turn);
      pending = calls;
      out.push(
        calls.length
          ? { role: 'assistant', content: null, tool_calls: calls }
          : { role: 'assistant', content: m.content ?? null },
      );
    } else if (m.role === 'user' && pending.length && String(m.content ?? '').includes('<tool_response>')) {
      parseToolResponses(String(m.content)).forEach((r, i) => {
        const call = pending[i];
        if (call) out.push({ role: 'tool', tool_call_id: call.id, name: call.function.name, content: r.content });
      });
      pending = [];
    } else out.push(m);
  }
  return out;
}

/** A native reply as the text a prompt-based model would write. */
export function replyAsText(reply: { content: string | null; tool_calls?: ToolCall[] }): string {
  if (!reply.tool_calls?.length) return reply.content ?? '';
  return renderToolCalls(
    reply.tool_calls.map((c) => ({
      name: c.function.name,
      arguments: JSON.parse(c.function.arguments || '{}') as Record<string, unknown>,
    })),
    'hermes',
  );
}

/** Tools embedded in a prompt-based system message (the simulator reads them back). */
export function toolsFromPrompt(system: string): OpenAITool[] {
  const start = system.indexOf(TOOLS_OPEN);
  const end = system.indexOf('</tools>', start);
  if (start < 0 || end < 0) return [];
  return system
    .slice(start + TOOLS_OPEN.length, end)
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [{ type: 'function' as const, function: JSON.parse(l) as OpenAITool['function'] }];
      } catch {
        return [];
      }
    });
}
