import { LoopError, runToolLoop } from '../../agent/loop.ts';
import type { OpenAITool, ToolExecution, ToolExecutor, ToolInvocation } from '../../core/chat.ts';
import type { ChatInput, EvalTool, Task, TaskContext, TaskOutput, ToolCallRecord } from './types.ts';

export interface ToolLoopOptions {
  /** The system prompt. */
  system?: string;
  /** Model requests at most (each may call several tools). Default 8. */
  maxTurns?: number;
  /** `fc`: native tool calls (default); `prompt`: tools described in the prompt, calls parsed from text. */
  callStyle?: 'fc' | 'prompt';
  /** Largest tool result passed back to the model, in characters (a marker says how much was cut). Default 8000. */
  resultCharBudget?: number;
}

const ANSWER = /<answer>([\s\S]*?)<\/answer>/gi;

/** The text inside the last `<answer>…</answer>`, else the whole text; trimmed. */
export function extractAnswer(text: string): string {
  const all = [...text.matchAll(ANSWER)];
  return (all.length ? all.at(-1)![1]! : text).trim();
}

/** Runs the eval's own tools: unknown tools, bad arguments and exceptions become tool messages, as with models. */
class EvalExecutor implements ToolExecutor {
  readonly calls: ToolCallRecord[] = [];
  constructor(
    private readonly evalTools: readonly EvalTool[],
    private readonly budget: number,
  ) {}

  tools(): OpenAITool[] {
    return this.evalTools.map((t) => ({
      type: 'function' as const,
      function: {
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        parameters: t.parameters ?? { type: 'object', properties: {} },
      },
    }));
  }

  async execute(call: ToolInvocation): Promise<ToolExecution> {
    const tool = this.evalTools.find((t) => t.name === call.name);
    let args: Record<string, unknown> | null = null;
    let result = '';
    let error: string | null = null;
    try {
      const parsed: unknown = call.argumentsJson.trim() ? JSON.parse(call.argumentsJson) : {};
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed as Record<string, unknown>;
      else throw new Error('arguments are not a JSON object');
    } catch (err) {
      error = `bad arguments: ${(err as Error).message}`;
    }
    if (!error && !tool) error = `unknown tool '${call.name}'`;
    if (!error && tool && args) {
      try {
        const out = await tool.run(args);
        result = typeof out === 'string' ? out : JSON.stringify(out ?? null);
      } catch (err) {
        error = `tool error: ${(err as Error).message}`;
      }
    }
    const content = error
      ? `error: ${error}`
      : result.length > this.budget
        ? `${result.slice(0, this.budget)}\n... [truncated tool result: ${result.length} chars]`
        : result;
    this.calls.push({
      name: call.name,
      arguments: args,
      argumentsJson: call.argumentsJson,
      result: error ? '' : result,
      error,
    });
    return { content, meta: { outcome: error ? 'error' : 'ok' } };
  }
}

/**
 * The standard task: the model gets the system prompt, the case's input (a question, or a message list: a leading
 * system message replaces `system`) and the eval's tools, and calls tools
 * until it answers without one (or the turns run out). The final text, its `<answer>`, every tool call with its
 * result, the messages and the usage are what scorers see. An endpoint that fails for good throws (the kit records
 * the instance as a harness error).
 */
export function toolLoop(opts: ToolLoopOptions = {}): Task<ChatInput, TaskOutput, unknown> {
  return async (input: ChatInput, ctx: TaskContext<ChatInput, unknown>): Promise<TaskOutput> => {
    const executor = new EvalExecutor(ctx.tools, opts.resultCharBudget ?? 8000);
    try {
      const trace = await runToolLoop({
        client: ctx.client,
        ctx: { instance: `${ctx.suite}:${ctx.case.id}`, trial: ctx.trial },
        system: opts.system ?? 'You can call tools. When you are done, give the final answer as <answer>…</answer>.',
        user: input,
        executor,
        maxTurns: opts.maxTurns ?? 8,
        callStyle: opts.callStyle ?? 'fc',
        // The trial's values from the kit: what the header records.
        sampling: ctx.sampling,
      });
      const last = [...trace.messages].reverse().find((m) => m.role === 'assistant');
      const output = last?.content ?? '';
      return {
        output,
        answer: extractAnswer(output),
        toolCalls: executor.calls,
        messages: trace.messages,
        usage: trace.usage,
        turns: trace.modelCalls.length,
        modelCalls: trace.modelCalls,
      };
    } catch (err) {
      if (err instanceof LoopError) throw new Error(err.message);
      throw err;
    }
  };
}
