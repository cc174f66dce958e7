import type { ChatMessage, ToolCall, ToolExecutor } from '../core/chat.ts';
import type { ModelClient } from '../model/client.ts';
import { ModelCallError, type CallContext, type Sampling, type Usage } from '../model/types.ts';
import { callsFromText, promptToolInstructions, toolResponseMessage } from './prompt-tools.ts';

export interface ModelCallRecord {
  turn: number;
  purpose: 'turn' | 'final_answer';
  latencyMs: number;
  attempts: number;
  retried: string[];
  cached: boolean;
  finishReason: string | null;
  usage: Usage;
}

export interface ToolRecord {
  turn: number;
  id: string;
  name: string;
  argumentsJson: string;
  content: string;
  durationMs: number;
  meta?: Record<string, unknown>;
}

export interface LoopTrace {
  messages: ChatMessage[];
  modelCalls: ModelCallRecord[];
  tools: ToolRecord[];
  usage: Usage;
  /** The loop used every turn without a tool-free answer. */
  exhausted: boolean;
  /** The extra final-answer call was made. */
  forcedFinal: boolean;
  wallMs: number;
}

export interface ToolLoopOptions {
  client: ModelClient;
  ctx: CallContext;
  system: string;
  /**
   * The user's question, or a conversation to continue (messages after the system prompt). A conversation whose
   * first message is a system message brings its own system prompt: it replaces `system`.
   */
  user: string | readonly ChatMessage[];
  executor: ToolExecutor;
  maxTurns: number;
  /**
   * `fc` (default): native tool calls (`tools` in the request, `tool_calls` back). `prompt`: tools described in the
   * system prompt, calls parsed from the text, results returned as a user message.
   */
  callStyle?: 'fc' | 'prompt';
  /** Tool calls run per turn (default 32): a model that emits thousands in one response gets the rest refused. */
  maxToolCallsPerTurn?: number;
  /** Decide whether the final-answer call is needed, and make it (suite-specific prompt). */
  finalizer?: {
    needed(messages: ChatMessage[], exhausted: boolean): boolean;
    request(messages: ChatMessage[]): { pending: ChatMessage; call: ChatMessage[] };
  };
  /** Sampling of the turns (team members differ by seed; presets set the reference's values). Unset: the client's. */
  sampling?: Sampling;
  /** Sampling of the final-answer call; default: the turns' seed at temperature 0. */
  finalSampling?: Sampling;
}

export const DEFAULT_MAX_TOOL_CALLS_PER_TURN = 32;

/** The endpoint failed for good mid-run; the partial trace is kept for the record. */
export class LoopError extends Error {
  override name = 'LoopError';
  constructor(
    override readonly cause: ModelCallError,
    readonly trace: LoopTrace,
  ) {
    super(cause.message);
  }
}

/**
 * The tool-calling loop: ask, execute every tool call in order, append results, repeat until the model answers
 * without a tool call or `maxTurns` requests are used; then, if the suite says so, one more call for the final
 * answer. History keeps each call's arguments as valid JSON (a malformed string would make strict servers such as
 * vLLM reject the next request), while the executor receives the raw text.
 */
export async function runToolLoop(o: ToolLoopOptions): Promise<LoopTrace> {
  const started = performance.now();
  const tools = o.executor.tools();
  const prompt = o.callStyle === 'prompt';
  const sampling: Sampling = o.sampling ?? {};
  const finalSampling: Sampling = o.finalSampling ?? {
    ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
    temperature: 0,
  };
  const opening: ChatMessage[] = typeof o.user === 'string' ? [{ role: 'user', content: o.user }] : [...o.user];
  const system = opening[0]?.role === 'system' ? (opening.shift()!.content ?? '') : o.system;
  const trace: LoopTrace = {
    messages: [
      { role: 'system', content: prompt ? `${system}\n\n${promptToolInstructions(tools)}` : system },
      ...opening,
    ],
    modelCalls: [],
    tools: [],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    exhausted: true,
    forcedFinal: false,
    wallMs: 0,
  };
  try {
    for (let turn = 0; turn < o.maxTurns; turn++) {
      const r = await o.client.chat(
        prompt
          ? { messages: trace.messages, ...sampling }
          : { messages: trace.messages, tools, toolChoice: 'auto', ...sampling },
        o.ctx,
      );
      record(trace, turn, 'turn', r);
      const calls = prompt ? callsFromText(r.content, tools, turn + 1) : r.tool_calls;
      const assistant: ChatMessage = { role: 'assistant' };
      if (r.content !== null) assistant.content = r.content;
      if (!prompt && calls.length) assistant.tool_calls = calls.map(sanitizeForHistory);
      trace.messages.push(assistant);
      if (!calls.length) {
        trace.exhausted = false;
        break;
      }
      const results: Array<{ name: string; content: string }> = [];
      const limit = o.maxToolCallsPerTurn ?? DEFAULT_MAX_TOOL_CALLS_PER_TURN;
      for (const [i, call] of calls.entries()) {
        const t0 = performance.now();
        const out =
          i < limit
            ? await o.executor.execute({
                id: call.id,
                name: call.function.name,
                argumentsJson: call.function.arguments,
              })
            : {
                content: `error: not run: this turn made ${calls.length} tool calls and at most ${limit} run per turn`,
                meta: { outcome: 'refused_over_limit' },
              };
        trace.tools.push({
          turn,
          id: call.id,
          name: call.function.name,
          argumentsJson: call.function.arguments,
          content: out.content,
          durationMs: performance.now() - t0,
          meta: out.meta,
        });
        if (prompt) results.push({ name: call.function.name, content: out.content });
        else trace.messages.push({ role: 'tool', tool_call_id: call.id, content: out.content });
      }
      if (prompt) trace.messages.push(toolResponseMessage(results));
    }
    if (o.finalizer?.needed(trace.messages, trace.exhausted)) {
      const { pending, call } = o.finalizer.request(trace.messages);
      trace.messages.push(pending);
      trace.forcedFinal = true;
      const r = await o.client.chat({ messages: call, ...finalSampling }, o.ctx);
      record(trace, trace.modelCalls.length, 'final_answer', r);
      trace.messages.push({ role: 'assistant', content: r.content ?? '' });
    }
  } catch (err) {
    trace.wallMs = performance.now() - started;
    if (err instanceof ModelCallError) throw new LoopError(err, trace);
    throw err;
  }
  trace.wallMs = performance.now() - started;
  return trace;
}

function record(
  trace: LoopTrace,
  turn: number,
  purpose: ModelCallRecord['purpose'],
  r: Awaited<ReturnType<ModelClient['chat']>>,
) {
  trace.modelCalls.push({
    turn,
    purpose,
    latencyMs: r.latencyMs,
    attempts: r.attempts,
    retried: r.retried,
    cached: r.cached,
    finishReason: r.finish_reason,
    usage: r.usage,
  });
  trace.usage.prompt_tokens += r.usage.prompt_tokens;
  trace.usage.completion_tokens += r.usage.completion_tokens;
  trace.usage.total_tokens += r.usage.total_tokens;
}

/** Arguments as valid JSON for the history: `{}` for empty, the raw text wrapped when it does not parse. */
export function sanitizeForHistory(call: ToolCall): ToolCall {
  return { ...call, function: { ...call.function, arguments: validJsonArguments(call.function.arguments) } };
}

export function validJsonArguments(raw: string | undefined | null): string {
  if (raw === undefined || raw === null || raw === '') return '{}';
  try {
    return pyJsonDumps(JSON.parse(raw));
  } catch {
    return pyJsonDumps({ _malformed_arguments: raw });
  }
}

/** `json.dumps(x, ensure_ascii=False)` layout (", " and ": " separators), so histories match the reference runner. */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyJsonDumps(v)}`)
      .join(', ')}}`;
  }
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  }
  return JSON.stringify(value);
}
