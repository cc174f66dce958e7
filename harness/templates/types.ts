// The message and tool shapes a chat template is rendered with. Deliberately wider than the harness's own
// ChatMessage (harness/core/chat.ts): templates are exercised with dict arguments, missing call ids and absent
// content, which the harness itself never produces. Every core ChatMessage is assignable to this one.

export interface TemplateToolCall {
  id?: string;
  type?: 'function';
  function: { name: string; arguments: string | Record<string, unknown> };
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string | null;
  tool_calls?: TemplateToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface OpenAITool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}
