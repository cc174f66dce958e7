import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import type { ChatMessage, ToolCall } from '../core/chat.ts';
import type { Task, TaskContext, TaskOutput, ToolCallRecord } from '../kit/eval/types.ts';
import { sdkEndpoint } from '../model/sdk-endpoint.ts';
import { asText, count, inputMessages, promptOf, standardOutput, toolCallRecord } from './task-output.ts';

/**
 * A Vercel AI SDK agent (`generateText` / `streamText` with tools) as a describeEval task: the adapter hands the
 * agent a model on the run's endpoint and this trial's call settings, and turns the SDK's result into the standard
 * output (answer, tool calls with their results, messages, usage, turns) the scorers and the trace read.
 */

/** The model `createOpenAICompatible` makes for the run's endpoint. */
export type AiSdkModel = ReturnType<ReturnType<typeof createOpenAICompatible>['chatModel']>;

/** The AI SDK's call settings of this trial: spread them into `generateText` / `streamText`. */
export interface AiSdkSettings {
  /** toolgauge's request headers (the case and the trial) and the endpoint URL's credentials. */
  headers: Record<string, string>;
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  seed?: number;
  /** The run's `--retries`. */
  maxRetries: number;
}

export interface AiSdkTaskContext<TInput = string, TExpected = unknown> extends TaskContext<TInput, TExpected> {
  /**
   * The run's model on the run's endpoint (the simulator when no `--base-url` is given). It sends toolgauge's headers
   * and this trial's sampling with every request, unless the call sets its own.
   */
  model: AiSdkModel;
  /** This trial's settings and headers, for `generateText({ model, …settings })`. */
  settings: AiSdkSettings;
  /** The same headers as `settings.headers`, for an agent that sets its own call settings. */
  headers: Record<string, string>;
}

/**
 * The part of a `generateText` or `streamText` result the adapter reads (a stream's fields are promises: the
 * adapter waits for the stream to finish). Loosely typed on purpose: any tool set's result fits.
 */
export interface AiSdkResult {
  steps: readonly unknown[] | PromiseLike<readonly unknown[]>;
  totalUsage: unknown;
}

/** The user's agent: the case's input and the adapter's model and settings in, the SDK's result out. */
export type AiSdkAgent<TInput, TExpected> = (
  input: TInput,
  ctx: AiSdkTaskContext<TInput, TExpected>,
) => Promise<AiSdkResult> | AiSdkResult;

export function aiSdkTask<TInput = string, TExpected = unknown>(
  agent: AiSdkAgent<TInput, TExpected>,
): Task<TInput, TaskOutput, TExpected> {
  return async (input, ctx) => {
    const ep = sdkEndpoint(ctx.client, { instance: `${ctx.suite}:${ctx.case.id}`, trial: ctx.trial });
    const s = ctx.sampling;
    // The model itself sends the headers and this trial's sampling, so an agent that does not spread `settings` is
    // still known to the simulator and sampled by the kit's rule; a value the call sets wins.
    const sampling = {
      ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
      ...(s.topP !== undefined ? { top_p: s.topP } : {}),
      ...(s.maxTokens !== undefined ? { max_tokens: s.maxTokens } : {}),
      ...(s.seed !== undefined ? { seed: s.seed } : {}),
    };
    const provider = createOpenAICompatible({
      name: 'toolgauge',
      baseURL: ep.baseUrl,
      apiKey: ep.apiKey,
      headers: ep.headers,
      queryParams: ep.query,
      fetch: ep.fetch,
      includeUsage: true,
      transformRequestBody: (body) => ({
        ...sampling,
        ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)),
      }),
    });
    const settings: AiSdkSettings = {
      headers: ep.headers,
      maxRetries: ep.retries,
      ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
      ...(s.topP !== undefined ? { topP: s.topP } : {}),
      ...(s.maxTokens !== undefined ? { maxOutputTokens: s.maxTokens } : {}),
      ...(s.seed !== undefined ? { seed: s.seed } : {}),
    };
    const result = await agent(input, { ...ctx, model: provider.chatModel(ep.model), settings, headers: ep.headers });
    return aiSdkOutput(input, { steps: await result.steps, totalUsage: await result.totalUsage });
  };
}

// The parts of a step's content the output is made of; other parts (reasoning, sources, files) are skipped.
const ToolCallPart = z.object({
  type: z.literal('tool-call'),
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
});
const ToolResultPart = z.object({
  type: z.literal('tool-result'),
  toolCallId: z.string(),
  output: z.unknown(),
  preliminary: z.boolean().optional(),
});
const ToolErrorPart = z.object({ type: z.literal('tool-error'), toolCallId: z.string(), error: z.unknown() });
const TextPart = z.object({ type: z.literal('text'), text: z.string() });
const ContentPart = z.union([ToolCallPart, ToolResultPart, ToolErrorPart, TextPart]);
const Step = z.object({
  content: z.array(z.unknown()),
  request: z.object({ body: z.unknown() }).partial().optional(),
});
const Usage = z.object({ inputTokens: z.unknown(), outputTokens: z.unknown(), totalTokens: z.unknown() }).partial();

const errorText = (e: unknown): string => (e instanceof Error ? e.message : asText(e));

/**
 * The standard output of a finished AI SDK run: one assistant message per step (its text and tool calls), then a
 * tool message per result. The conversation opens with what the first step sent before its reply (system prompt
 * and user turns, from the provider's request body), else with the input as the user's message.
 */
export function aiSdkOutput(input: unknown, result: { steps: readonly unknown[]; totalUsage: unknown }): TaskOutput {
  const steps = result.steps.map((s, i) => {
    const parsed = Step.safeParse(s);
    if (!parsed.success) throw new Error(`aiSdkTask: step ${i} of the result has no content array`);
    return parsed.data;
  });
  const messages: ChatMessage[] = promptOf(steps[0]?.request?.body) ?? inputMessages(input);
  const toolCalls: ToolCallRecord[] = [];
  for (const step of steps) {
    const parts = step.content.flatMap((p) => {
      const r = ContentPart.safeParse(p);
      return r.success ? [r.data] : [];
    });
    const calls = parts.filter((p) => p.type === 'tool-call');
    const text = parts
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('');
    const tool_calls: ToolCall[] = calls.map((c) => ({
      id: c.toolCallId,
      type: 'function',
      function: { name: c.toolName, arguments: toolCallRecord(c.toolName, c.input, '', null).argumentsJson },
    }));
    messages.push({ role: 'assistant', content: text || null, ...(tool_calls.length ? { tool_calls } : {}) });
    for (const c of calls) {
      // A tool that streams preliminary results ends with a final one: the last result of a call is what counts.
      const result = parts.filter((p) => p.type === 'tool-result' && p.toolCallId === c.toolCallId && !p.preliminary);
      const error = parts.find((p) => p.type === 'tool-error' && p.toolCallId === c.toolCallId);
      const record =
        error?.type === 'tool-error'
          ? toolCallRecord(c.toolName, c.input, '', `tool error: ${errorText(error.error)}`)
          : result.length
            ? toolCallRecord(c.toolName, c.input, (result.at(-1) as { output: unknown }).output, null)
            : null;
      // A call the SDK did not run (no execute function, or an approval pending) is recorded without a result.
      toolCalls.push(record ?? toolCallRecord(c.toolName, c.input, '', null));
      if (record)
        messages.push({
          role: 'tool',
          tool_call_id: c.toolCallId,
          content: record.error ? `error: ${record.error}` : record.result,
        });
    }
  }
  const u = Usage.safeParse(result.totalUsage);
  const usage = u.success ? u.data : {};
  const prompt = count(usage.inputTokens);
  const completion = count(usage.outputTokens);
  return standardOutput({
    messages,
    toolCalls,
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: count(usage.totalTokens) || prompt + completion,
    },
    turns: steps.length,
    // The SDK's own final text is the last step's text.
    output: steps.length ? textOf(steps.at(-1)!.content) : '',
  });
}

function textOf(content: readonly unknown[]): string {
  return content
    .map((p) => TextPart.safeParse(p))
    .filter((r) => r.success)
    .map((r) => r.data.text)
    .join('');
}
