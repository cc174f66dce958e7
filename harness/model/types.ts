import { z } from 'zod';
import { ToolCall, type ChatMessage, type OpenAITool } from '../core/chat.ts';

/** Generation settings of one request; unset fields keep the client's defaults. */
export interface Sampling {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  /** Server-specific fields merged into the body last (vLLM's `repetition_penalty`, `chat_template_kwargs`, grammars). */
  extraBody?: Record<string, unknown>;
}

export interface ChatRequest extends Sampling {
  messages: ChatMessage[];
  tools?: OpenAITool[];
  toolChoice?: 'auto' | 'none' | 'required';
}

export interface CompletionRequest extends Sampling {
  prompt: string;
  stop?: string[];
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

/** A token count as stored: a non-negative whole number; anything else read back from a file counts as 0. */
const Count = z.number().int().nonnegative().catch(0).default(0);

export const Usage = z.object({
  prompt_tokens: Count,
  completion_tokens: Count,
  total_tokens: Count,
  /** Fields the endpoint sent as garbage (NaN, null, "many", negative): stored as 0 and named here. */
  unknown: z.array(z.string()).optional().catch(undefined),
});
export type Usage = z.infer<typeof Usage>;

/**
 * Usage as an endpoint reported it, validated at the boundary: each count must be a non-negative whole number
 * (a numeric string is accepted); a bad field becomes 0 and is listed as unknown, so nothing later (sums, files,
 * `rescore`) sees garbage. A missing total is the sum of the parts when both are known.
 */
export function usageFromEndpoint(u: unknown): Usage {
  const raw = (u && typeof u === 'object' ? u : {}) as Record<string, unknown>;
  const unknown: string[] = [];
  const count = (k: 'prompt_tokens' | 'completion_tokens' | 'total_tokens'): number | null => {
    const v = raw[k];
    if (v === undefined) return null;
    const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v;
    if (typeof n === 'number' && Number.isInteger(n) && n >= 0) return n;
    unknown.push(k);
    return null;
  };
  const p = count('prompt_tokens');
  const c = count('completion_tokens');
  const t = count('total_tokens');
  return {
    prompt_tokens: p ?? 0,
    completion_tokens: c ?? 0,
    total_tokens: t ?? (p ?? 0) + (c ?? 0),
    ...(unknown.length ? { unknown } : {}),
  };
}

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
