/**
 * A chat request as raw text and back: the messages (and tools) rendered with the GGUF's own chat template, and the
 * generated text read into an assistant message — tool calls parsed with the strict parser of the template's family
 * (harness/parse), the rest content. Pure.
 */
import { parseToolCalls, type Family } from '../parse/index.ts';
import { renderChat, TemplateError, type ChatMessage as TemplateMessage } from '../templates/index.ts';
import { toolSchemas } from './constraint.ts';
import { HttpError, type ChatBody } from './request.ts';

export interface TemplateInfo {
  source: string;
  family: Family | null;
  bosToken?: string | undefined;
  eosToken?: string | undefined;
}

type Msg = ChatBody['messages'][number];

const text = (c: Msg['content']): string | null | undefined => (Array.isArray(c) ? c.map((p) => p.text).join('') : c);

/**
 * Messages as chat templates expect them (transformers' convention): text parts joined, `developer` as `system`,
 * call arguments as objects (most templates write `arguments | tojson`) when they are a JSON object.
 */
export function templateMessages(messages: readonly Msg[]): TemplateMessage[] {
  return messages.map((m) => {
    const out: Record<string, unknown> = { ...m, role: m.role === 'developer' ? 'system' : m.role };
    if (m.content !== undefined) out.content = text(m.content);
    if (m.tool_calls)
      out.tool_calls = m.tool_calls.map((tc) => {
        let args: unknown = tc.function.arguments;
        if (typeof args === 'string') {
          try {
            const parsed: unknown = JSON.parse(args);
            if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed;
          } catch {
            // not JSON: the template gets the string as sent
          }
        }
        return { ...tc, type: 'function', function: { ...tc.function, arguments: args } };
      });
    return out as unknown as TemplateMessage;
  });
}

/**
 * The prompt text of a chat request. Templates see toolgauge's fixed clock (DEFAULT_NOW), so a prompt does not change
 * with the day a run is made. A template that fails or raises is a 400 with its message.
 */
export function chatPrompt(t: TemplateInfo, b: ChatBody): string {
  try {
    return renderChat(t.source, {
      messages: templateMessages(b.messages),
      ...(b.tools?.length ? { tools: b.tools.map((x) => ({ type: 'function' as const, function: x.function })) } : {}),
      addGenerationPrompt: true,
      ...(t.bosToken !== undefined ? { bosToken: t.bosToken } : {}),
      ...(t.eosToken !== undefined ? { eosToken: t.eosToken } : {}),
      ...(b.chat_template_kwargs ? { extra: b.chat_template_kwargs } : {}),
    });
  } catch (err) {
    if (err instanceof TemplateError)
      throw new HttpError(400, `the model's chat template cannot render this request: ${err.message}`);
    throw err;
  }
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
}

/**
 * The generated text as an assistant message. With tools offered (and tool_choice not none) the strict parser of the
 * template's family reads the calls; text it cannot read as calls stays content, as llama-server leaves it.
 */
export function readReply(t: TemplateInfo, b: ChatBody, generated: string, idBase: string): AssistantMessage {
  const tools = toolSchemas(b);
  if (!tools.length || b.tool_choice === 'none') return { role: 'assistant', content: generated };
  const r = parseToolCalls(generated, { tier: 'strict', format: t.family ?? 'auto', tools });
  if (!r.calls.length) return { role: 'assistant', content: generated };
  const calls = b.parallel_tool_calls === false ? r.calls.slice(0, 1) : r.calls;
  return {
    role: 'assistant',
    content: r.content.length ? r.content : null,
    tool_calls: calls.map((c, i) => ({
      id: `call_${idBase}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: JSON.stringify(c.arguments) },
    })),
  };
}
