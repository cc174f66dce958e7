import { z } from 'zod';
import { ToolCall, type ChatMessage, type OpenAITool } from '../core/chat.ts';

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: OpenAITool[];
  toolChoice?: 'auto' | 'none' | 'required';
  temperature?: number;
  maxTokens?: number;
  seed?: number;
}

export interface CompletionRequest {
  prompt: string;
  temperature?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
}

/** Who is asking: sent as headers (the simulator uses them; real endpoints ignore them) and part of the cache key. */
export interface CallContext {
  /** `<suite>:<instance id>`, e.g. `toolhop:17`. */
  instance: string;
  agent?: string;
  trial?: number;
  /** A second look at the same instance (e.g. `counterfactual` re-asks with a repaired template). */
  variant?: string;
}

export const Usage = z.object({
  prompt_tokens: z.number().default(0),
  completion_tokens: z.number().default(0),
  total_tokens: z.number().default(0),
});
export type Usage = z.infer<typeof Usage>;

/** The part of a response that is cached and replayed (no timing). */
export const CachedChat = z.object({
  kind: z.literal('chat'),
  content: z.string().nullable(),
  tool_calls: z.array(ToolCall),
  finish_reason: z.string().nullable(),
  usage: Usage,
  model: z.string().optional(),
});
export type CachedChat = z.infer<typeof CachedChat>;

export const CachedCompletion = z.object({
  kind: z.literal('completion'),
  text: z.string(),
  finish_reason: z.string().nullable(),
  usage: Usage,
  model: z.string().optional(),
});
export type CachedCompletion = z.infer<typeof CachedCompletion>;

export interface CallStats {
  latencyMs: number;
  attempts: number;
  cached: boolean;
  /** Failures that were retried, in order ("429", "timeout", …). */
  retried: string[];
}

export type ChatResponse = CachedChat & CallStats;
export type CompletionResponse = CachedCompletion & CallStats;

/** The endpoint failed for good (after retries, or a non-retryable error): the instance is an `error`, not wrong. */
export class ModelCallError extends Error {
  override name = 'ModelCallError';
  constructor(
    message: string,
    readonly kind: string,
    readonly attempts: number,
    readonly status?: number,
  ) {
    super(message);
  }
}
