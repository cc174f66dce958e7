import { type ModelSettings, OpenAIChatCompletionsModel, type OpenAIClient, Runner } from '@openai/agents';
import { z } from 'zod';
import type { ChatMessage } from '../core/chat.ts';
import type { Task, TaskContext, TaskOutput, ToolCallRecord } from '../kit/eval/types.ts';
import { openAIClientFor, sdkEndpoint } from '../model/sdk-endpoint.ts';
import { asText, count, inputMessages, promptOf, standardOutput, toolCallRecord } from './task-output.ts';

/**
 * An OpenAI Agents SDK agent (`Agent` + `run`) as a describeEval task: the adapter hands the agent a runner whose
 * model is the run's model on the run's endpoint over Chat Completions (the simulator when no `--base-url` is
 * given), with this trial's sampling and toolgauge's request headers, and turns the run's result into the standard
 * output the scorers and the trace read.
 */

export interface OpenAIAgentsTaskContext<TInput = string, TExpected = unknown> extends TaskContext<TInput, TExpected> {
  /** A runner whose model and model settings override every agent's: `runner.run(agent, input)`. */
  runner: Runner;
  /** The run's model, for an agent that runs with its own runner (`new Agent({ model, … })`). */
  model: OpenAIChatCompletionsModel;
  /** This trial's temperature, max tokens and seed (the seed in `providerData`). */
  modelSettings: ModelSettings;
  /** The OpenAI client on the endpoint, sending toolgauge's request headers with every request. */
  openai: OpenAIClient;
}

/** The part of a run's result the adapter reads (`run()`'s, or a streamed run's once it has completed). */
export interface OpenAIAgentsResult {
  history: readonly unknown[];
  rawResponses: readonly unknown[];
  finalOutput?: unknown;
  completed?: PromiseLike<void>;
}

export type OpenAIAgentsAgent<TInput, TExpected> = (
  input: TInput,
  ctx: OpenAIAgentsTaskContext<TInput, TExpected>,
) => Promise<OpenAIAgentsResult> | OpenAIAgentsResult;

export function openAIAgentsTask<TInput = string, TExpected = unknown>(
  agent: OpenAIAgentsAgent<TInput, TExpected>,
): Task<TInput, TaskOutput, TExpected> {
  return async (input, ctx) => {
    const ep = sdkEndpoint(ctx.client, { instance: `${ctx.suite}:${ctx.case.id}`, trial: ctx.trial });
    // The first request's messages hold the agent's instructions, which the run's history leaves out.
    let firstBody: unknown;
    const inner = ep.fetch;
    const seen: typeof fetch = (url, init) => {
      if (firstBody === undefined && typeof init?.body === 'string') firstBody = init.body;
      return inner(url, init);
    };
    // The client is toolgauge's openai SDK; the Agents SDK calls only `chat.completions.create` on it.
    const openai = (await openAIClientFor({ ...ep, fetch: seen })) as unknown as OpenAIClient;
    const model = new OpenAIChatCompletionsModel(openai, ep.model);
    const s = ctx.sampling;
    const modelSettings: ModelSettings = {
      ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
      ...(s.topP !== undefined ? { topP: s.topP } : {}),
      ...(s.maxTokens !== undefined ? { maxTokens: s.maxTokens } : {}),
      ...(s.seed !== undefined ? { providerData: { seed: s.seed } } : {}),
    };
    // No traces sent to OpenAI's tracing service: the run's trace is toolgauge's.
    const runner = new Runner({ model, modelSettings, tracingDisabled: true });
    const result = await agent(input, { ...ctx, runner, model, modelSettings, openai });
    await result.completed;
    const system = (promptOf(firstBody) ?? []).filter((m) => m.role === 'system');
    return openAIAgentsOutput(input, result, system);
  };
}

const Text = z.object({ text: z.string() }).passthrough();
const Content = z.union([z.string(), z.array(z.unknown())]);
const MessageItem = z.object({ role: z.enum(['system', 'user', 'assistant']), content: Content });
const FunctionCallItem = z.object({
  type: z.literal('function_call'),
  callId: z.string(),
  name: z.string(),
  arguments: z.string(),
});
const FunctionResultItem = z.object({
  type: z.literal('function_call_result'),
  callId: z.string(),
  name: z.string(),
  output: z.unknown(),
});
const Item = z.union([FunctionCallItem, FunctionResultItem, MessageItem]);
const RawResponse = z.object({
  usage: z.object({ inputTokens: z.unknown(), outputTokens: z.unknown(), totalTokens: z.unknown() }).partial(),
});

/** The text of a message's content or a tool's output: a string, a text part, or the text parts of a list. */
function textOf(x: unknown): string {
  if (typeof x === 'string') return x;
  const one = Text.safeParse(x);
  if (one.success) return one.data.text;
  if (Array.isArray(x))
    return x
      .map((p) => Text.safeParse(p))
      .filter((r) => r.success)
      .map((r) => r.data.text)
      .join('');
  return asText(x);
}

/**
 * The standard output of a finished Agents SDK run, from its history (input items and the items the run added):
 * an assistant message's text and the function calls right after it are one assistant message, each function
 * result a tool message. A tool that throws answers the model with the SDK's error text: that is its result here.
 */
export function openAIAgentsOutput(input: unknown, result: OpenAIAgentsResult, system: ChatMessage[] = []): TaskOutput {
  const messages: ChatMessage[] = [...system];
  const calls = new Map<string, { name: string; argumentsJson: string }>();
  const toolCalls: ToolCallRecord[] = [];
  for (const raw of result.history) {
    const r = Item.safeParse(raw);
    if (!r.success) continue; // reasoning, hosted tools, handoff bookkeeping: not part of the conversation
    const item = r.data;
    if ('type' in item && item.type === 'function_call') {
      calls.set(item.callId, { name: item.name, argumentsJson: item.arguments });
      const last = messages.at(-1);
      const call = {
        id: item.callId,
        type: 'function' as const,
        function: { name: item.name, arguments: item.arguments },
      };
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if ('type' in item && item.type === 'function_call_result') {
      const out = textOf(item.output);
      const call = calls.get(item.callId);
      toolCalls.push(toolCallRecord(item.name, call?.argumentsJson ?? '{}', out, null));
      messages.push({ role: 'tool', tool_call_id: item.callId, content: out });
    } else if ('role' in item) {
      messages.push({ role: item.role, content: textOf(item.content) });
    }
  }
  if (!messages.some((m) => m.role === 'user')) messages.unshift(...inputMessages(input));
  let prompt = 0;
  let completion = 0;
  let total = 0;
  for (const raw of result.rawResponses) {
    const u = RawResponse.safeParse(raw);
    if (!u.success) continue;
    prompt += count(u.data.usage.inputTokens);
    completion += count(u.data.usage.outputTokens);
    total += count(u.data.usage.totalTokens);
  }
  const final = result.finalOutput;
  return standardOutput({
    messages,
    toolCalls,
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total || prompt + completion },
    turns: result.rawResponses.length,
    ...(final !== undefined && final !== null ? { output: typeof final === 'string' ? final : asText(final) } : {}),
  });
}
