import type { ChatMessage, OpenAITool, ToolCall } from '../../core/chat.ts';
import type { ModelClient } from '../../model/client.ts';
import { ModelCallError, type CallContext, type ChatRequest, type ChatResponse } from '../../model/types.ts';
import type { TeamTask } from './member.ts';

/** One request a scripted client received. */
export interface SeenCall {
  agent: string;
  messages: ChatMessage[];
  tools: OpenAITool[] | undefined;
  seed: number | undefined;
  temperature: number | undefined;
}

export type Scripted = { content?: string | null; tool_calls?: ToolCall[] } | 'fail';

/**
 * A model client whose replies come from a script (a function of the request), recording every request: for tests
 * of control flow (who is asked what, in which order, with which context) without an endpoint. 'fail' makes the
 * call fail for good, as an endpoint would after its retries.
 */
export function scriptedClient(script: (call: SeenCall) => Scripted): { client: ModelClient; calls: SeenCall[] } {
  const calls: SeenCall[] = [];
  const client = {
    async chat(req: ChatRequest, ctx: CallContext): Promise<ChatResponse> {
      const call: SeenCall = {
        agent: ctx.agent ?? '',
        messages: structuredClone(req.messages),
        tools: req.tools,
        seed: req.seed,
        temperature: req.temperature,
      };
      calls.push(call);
      const r = script(call);
      if (r === 'fail') throw new ModelCallError('simulated endpoint failure', 'server_error', 1, 500);
      const calls_ = r.tool_calls ?? [];
      return {
        kind: 'chat',
        content: r.content ?? null,
        tool_calls: calls_,
        finish_reason: calls_.length ? 'tool_calls' : 'stop',
        usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
        latencyMs: 0,
        attempts: 1,
        cached: false,
        retried: [],
      };
    },
  };
  return { client: client as unknown as ModelClient, calls };
}

export const toolCall = (name: string, id = `c_${name}`): ToolCall => ({
  id,
  type: 'function',
  function: { name, arguments: '{}' },
});

/** The tool messages so far in a conversation. */
export const toolResults = (call: SeenCall) => call.messages.filter((m) => m.role === 'tool').length;
export const userText = (call: SeenCall) => String(call.messages.find((m) => m.role === 'user')?.content ?? '');
export const systemText = (call: SeenCall) => String(call.messages.find((m) => m.role === 'system')?.content ?? '');

/** A small task: one tool `lookup`, prompts named after their roles, `<answer>` tags for answers. */
export function testTask(client: ModelClient, over: Partial<TeamTask> = {}): TeamTask {
  const roles = ['solver', 'debater', 'manager', 'planner', 'caller', 'checker', 'verifier', 'w1', 'w2', 'w3'];
  return {
    instance: 'test:1',
    trial: 0,
    client,
    executor: {
      tools: () => [{ type: 'function', function: { name: 'lookup', description: 'Look a value up.' } }],
      execute: async () => ({ content: '"looked-up"' }),
    },
    maxTurns: 4,
    prompts: Object.fromEntries(roles.map((r) => [r, `ROLE ${r}`])),
    comm: 'freeform',
    system: (spec, rolePrompt, comm) => `${rolePrompt}${spec.answers ? ' [ANSWERS]' : ''}${comm ? `\n${comm}` : ''}`,
    user: (context) => (context ? `Q?\n${context}` : 'Q?'),
    answerOf: (m) => /<answer>([\s\S]*?)<\/answer>/.exec(m)?.[1] ?? m.trim(),
    reportPart: (m) => m.replace(/<answer>[\s\S]*?<\/answer>/g, '').trim(),
    baseSeed: 100,
    ...over,
  };
}
