import { z } from 'zod';

// The OpenAI chat shapes every suite speaks: tool definitions, tool calls and messages. The model layer turns
// SDK responses into these; the agent loop, the simulator, the templates and the judges consume them.

export const FunctionSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});
export type FunctionSchema = z.infer<typeof FunctionSchema>;

export const OpenAITool = z.object({ type: z.literal('function'), function: FunctionSchema });
export type OpenAITool = z.infer<typeof OpenAITool>;

export const ToolCall = z.object({
  id: z.string(),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

/** A tool call as executed: the raw arguments text is kept (models emit malformed JSON; that is data). */
export interface ToolInvocation {
  id: string;
  name: string;
  argumentsJson: string;
}

/** Executes the tools of one agent run. The agent loop calls `execute` once per tool call, in order. */
export interface ToolExecutor {
  tools(): OpenAITool[];
  execute(call: ToolInvocation): Promise<ToolExecution>;
}

export interface ToolExecution {
  /** The tool message content the model sees. */
  content: string;
  /** Whatever the suite wants in the trace (durations, perturbation status, error kind…). */
  meta?: Record<string, unknown>;
}
