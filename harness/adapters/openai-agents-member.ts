import {
  Agent,
  type FunctionTool,
  type ModelSettings,
  OpenAIChatCompletionsModel,
  type OpenAIClient,
  Runner,
} from '@openai/agents';
import { z } from 'zod';
import { commContract, lastAssistantContent } from '../agent/team/index.ts';
import type { MemberRun, MemberRunner, TeamTask } from '../agent/team/index.ts';
import type { ModelCallRecord, ToolRecord } from '../agent/loop.ts';
import { DEFAULT_MAX_TOOL_CALLS_PER_TURN } from '../agent/loop.ts';
import type { ChatMessage, OpenAITool } from '../core/chat.ts';
import type { ModelClient } from '../model/client.ts';
import { openAIClientFor, sdkEndpoint } from '../model/sdk-endpoint.ts';
import type { Sampling } from '../model/types.ts';
import { openAIAgentsOutput, type OpenAIAgentsResult } from './openai-agents.ts';

/**
 * One team member's turn as an OpenAI Agents SDK run (`Agent` + `Runner.run`), for a team whose protocol is
 * toolgauge's (harness/agent/team: who sees what, seeds, the vote) but whose agents are the SDK's: the member's
 * system prompt is the agent's instructions, its user message the run's input, the instance's tools the agent's
 * function tools (each call handed to the suite's executor with the model's raw arguments, as the tool loop does),
 * one tool at a time. Every request goes to the run's endpoint with toolgauge's headers (instance, agent, trial)
 * and the member's sampling and seed. A run that reaches its turn budget ends as the tool loop's does (the SDK's
 * `maxTurns` error handler), and the suite's final-answer call, when it is needed, is one more SDK run without
 * tools. What comes back is the tool loop's record of a member: messages, tool executions, model calls, cost.
 */
export const openAIAgentsMember: MemberRunner = async (task, spec, context) => {
  const rolePrompt = task.prompts[spec.role];
  if (rolePrompt === undefined) throw new Error(`team: no prompt loaded for role '${spec.role}'`);
  const started = performance.now();
  const system = task.system(spec, rolePrompt, commContract(task.comm));
  const user = task.user(context);
  const seed = (task.baseSeed ?? 0) + spec.seed;
  const turnSampling: Sampling = {
    ...task.sampling,
    seed,
    ...(task.temperature !== undefined ? { temperature: task.temperature } : {}),
  };
  const finalSampling: Sampling = task.finalSampling ? { ...task.finalSampling, seed } : { seed, temperature: 0 };
  const wire = await sdkModel(task.client, { instance: task.instance, agent: spec.agent, trial: task.trial });
  const tools: ToolRecord[] = [];
  const calls: ModelCallRecord[] = [];
  let messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
  let exhausted = false;
  let forcedFinal = false;
  let error: string | null = null;
  try {
    const offered = task.executor.tools();
    const agent = new Agent({
      name: spec.agent,
      instructions: system,
      tools: offered.map((t) => functionTool(t, task, wire, tools)),
      // Every turn asks with `tool_choice: auto`, as the tool loop does (the SDK would drop it after a tool call).
      resetToolChoice: false,
    });
    let partial: OpenAIAgentsResult | undefined;
    // `tool_choice: auto` with the tools, as the tool loop asks.
    const result = await wire.runner(turnSampling, offered.length ? 'auto' : undefined).run(agent, user, {
      maxTurns: task.maxTurns,
      // One tool at a time, in the order the model called them, as the tool loop runs them.
      toolExecution: { maxFunctionToolConcurrency: 1 },
      errorHandlers: {
        // Out of turns: the run ends with what it has (the tool loop's `exhausted`), not with an error.
        maxTurns: ({ runData }) => {
          exhausted = true;
          partial = { history: runData.history, rawResponses: runData.rawResponses };
          return { finalOutput: '', includeInHistory: false };
        },
      },
    });
    messages = openAIAgentsOutput(user, partial ?? result, [{ role: 'system', content: system }]).messages;
    calls.push(...wire.drain('turn', 0));
    const finalizer = task.finalizer?.(spec);
    if (finalizer?.needed(messages, exhausted)) {
      const { pending, call } = finalizer.request(messages);
      messages.push(pending);
      forcedFinal = true;
      const out = await finalAnswerRun(wire, call, finalSampling);
      calls.push(...wire.drain('final_answer', calls.length));
      messages.push({ role: 'assistant', content: out });
    }
  } catch (err) {
    // The endpoint failed for good (the SDK's client has retried): the member failed, as a LoopError makes it.
    error = `${(err as Error).name}: ${(err as Error).message}`;
    calls.push(...wire.drain('turn', 0));
  }
  const wallMs = performance.now() - started;
  const finalMessage = error ? '' : lastAssistantContent(messages);
  const usage = calls.reduce(
    (u, c) => ({
      prompt: u.prompt + c.usage.prompt_tokens,
      completion: u.completion + c.usage.completion_tokens,
      total: u.total + c.usage.total_tokens,
    }),
    { prompt: 0, completion: 0, total: 0 },
  );
  return {
    ...spec,
    messages,
    tools,
    modelCalls: calls,
    finalMessage,
    answer: error ? null : task.answerOf(finalMessage),
    exhausted,
    forcedFinal,
    cost: {
      modelCalls: calls.length,
      promptTokens: usage.prompt,
      completionTokens: usage.completion,
      totalTokens: usage.total,
      toolCalls: tools.length,
      wallMs,
    },
    error,
  } satisfies MemberRun;
};

/** The final-answer call as an SDK run: its system message the instructions, its user message the input. */
async function finalAnswerRun(wire: SdkWire, call: ChatMessage[], sampling: Sampling): Promise<string> {
  const [system, ...rest] = call;
  if (system?.role !== 'system' || rest.length !== 1 || rest[0]!.role !== 'user')
    throw new Error('openai-agents team: a final-answer call must be one system and one user message');
  const agent = new Agent({ name: 'final_answer', instructions: system.content ?? '' });
  const r = await wire.runner(sampling).run(agent, rest[0]!.content ?? '', { maxTurns: 1 });
  return typeof r.finalOutput === 'string' ? r.finalOutput : '';
}

/**
 * A tool of the instance as an SDK function tool: the model's raw arguments go to the suite's executor (which
 * answers malformed ones itself), the result is the tool message's content, and each execution is recorded with
 * the turn it belongs to. Past the tool loop's per-turn limit a call is refused with the loop's text.
 */
function functionTool(t: OpenAITool, task: TeamTask, wire: SdkWire, out: ToolRecord[]): FunctionTool {
  return {
    type: 'function',
    name: t.function.name,
    description: t.function.description ?? '',
    parameters: (t.function.parameters ?? { type: 'object', properties: {} }) as FunctionTool['parameters'],
    strict: false,
    needsApproval: async () => false,
    isEnabled: async () => true,
    invoke: async (_ctx, input, details) => {
      const turn = wire.responses() - 1;
      const id = details?.toolCall?.callId ?? `call_${out.length}`;
      const inTurn = out.filter((r) => r.turn === turn).length;
      const t0 = performance.now();
      const result =
        inTurn < DEFAULT_MAX_TOOL_CALLS_PER_TURN
          ? await task.executor.execute({ id, name: t.function.name, argumentsJson: input })
          : {
              content: `error: not run: this turn made more than ${DEFAULT_MAX_TOOL_CALLS_PER_TURN} tool calls and at most ${DEFAULT_MAX_TOOL_CALLS_PER_TURN} run per turn`,
              meta: { outcome: 'refused_over_limit' },
            };
      out.push({
        turn,
        id,
        name: t.function.name,
        argumentsJson: input,
        content: result.content,
        durationMs: performance.now() - t0,
        meta: result.meta,
      });
      return result.content;
    },
  };
}

const Completion = z
  .object({
    choices: z.array(z.object({ finish_reason: z.string().nullish() }).passthrough()).optional(),
    usage: z
      .object({
        prompt_tokens: z.number().int().nonnegative().catch(0).default(0),
        completion_tokens: z.number().int().nonnegative().catch(0).default(0),
        total_tokens: z.number().int().nonnegative().catch(0).default(0),
      })
      .passthrough()
      .nullish(),
  })
  .passthrough();

interface Attempt {
  ok: boolean;
  latencyMs: number;
  status: number | string;
  body?: z.infer<typeof Completion>;
}

/** The SDK's model on the run's endpoint for one member, and the record of every request it sent. */
interface SdkWire {
  runner(s: Sampling, toolChoice?: 'auto'): Runner;
  /** Completed requests so far: the current turn is this minus one while its tools run. */
  responses(): number;
  /** The model calls since the last drain, numbered from `firstTurn` (failed attempts count into the next call). */
  drain(purpose: ModelCallRecord['purpose'], firstTurn: number): ModelCallRecord[];
}

async function sdkModel(client: ModelClient, ctx: { instance: string; agent: string; trial: number }) {
  const ep = sdkEndpoint(client, ctx);
  const attempts: Attempt[] = [];
  let done = 0;
  const inner = ep.fetch;
  const timed: typeof fetch = async (url, init) => {
    const t0 = performance.now();
    try {
      const res = await inner(url, init);
      const a: Attempt = { ok: res.ok, latencyMs: 0, status: res.status };
      if (res.ok) {
        const parsed = Completion.safeParse(await res.clone().json());
        if (parsed.success) a.body = parsed.data;
        done++;
      }
      a.latencyMs = performance.now() - t0;
      attempts.push(a);
      return res;
    } catch (err) {
      attempts.push({ ok: false, latencyMs: performance.now() - t0, status: (err as Error).name });
      throw err;
    }
  };
  // The client is toolgauge's openai SDK; the Agents SDK calls only `chat.completions.create` on it.
  const openai = (await openAIClientFor({ ...ep, fetch: timed })) as unknown as OpenAIClient;
  const model = new OpenAIChatCompletionsModel(openai, ep.model);
  const o = client.opts;
  const wire: SdkWire = {
    // No traces go to OpenAI's tracing service: the run's trace is toolgauge's.
    runner: (s, toolChoice) =>
      new Runner({
        model,
        modelSettings: { ...modelSettings(s, o), ...(toolChoice ? { toolChoice } : {}) },
        tracingDisabled: true,
      }),
    responses: () => done,
    drain(purpose, firstTurn) {
      const out: ModelCallRecord[] = [];
      let retried: string[] = [];
      for (const a of attempts.splice(0)) {
        if (!a.ok) {
          retried.push(String(a.status));
          continue;
        }
        out.push({
          turn: firstTurn + out.length,
          purpose,
          latencyMs: a.latencyMs,
          attempts: retried.length + 1,
          retried,
          cached: false,
          finishReason: a.body?.choices?.[0]?.finish_reason ?? null,
          usage: {
            prompt_tokens: a.body?.usage?.prompt_tokens ?? 0,
            completion_tokens: a.body?.usage?.completion_tokens ?? 0,
            total_tokens: a.body?.usage?.total_tokens ?? 0,
          },
        });
        retried = [];
      }
      return out;
    },
  };
  return wire;
}

/**
 * A member's sampling as the SDK's model settings, with the client's defaults where the member sets nothing (as
 * toolgauge's client sends them); the seed and server-specific fields go in `providerData`, merged into the body.
 */
export function modelSettings(
  s: Sampling,
  o: Pick<ModelClient['opts'], 'temperature' | 'topP' | 'maxTokens' | 'seed' | 'extraBody'>,
): ModelSettings {
  const topP = s.topP ?? o.topP;
  const maxTokens = s.maxTokens ?? o.maxTokens;
  const seed = s.seed ?? o.seed;
  const extra = { ...o.extraBody, ...s.extraBody };
  return {
    temperature: s.temperature ?? o.temperature ?? 0,
    ...(topP !== undefined ? { topP } : {}),
    ...(maxTokens ? { maxTokens } : {}),
    providerData: { ...(seed !== undefined ? { seed } : {}), ...extra },
  };
}
