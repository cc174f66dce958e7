/**
 * A method (`--method baseline,pa_tool,…`) is a zero-training intervention on the request: it may present the
 * tools, their parameters, descriptions and the system prompt differently, and it maps the model's calls back to
 * the original schema before scoring, so every method is scored on the same cases, schemas and rules.
 */
import type { ChatMessage, OpenAITool } from '../core/chat.ts';
import type { ParsedCall } from '../parse/index.ts';

export interface MethodRequest {
  tools: OpenAITool[];
  messages: ChatMessage[];
}

export interface PreparedMethod {
  /** What is sent instead of the original request. */
  request: MethodRequest;
  /** A parsed call in the presented names → the call in the original names (identity for the baseline). */
  toOriginal(call: ParsedCall): ParsedCall;
  /** What the method decided (e.g. PA-Tool's rename map), for the record and the report. */
  meta: Record<string, unknown>;
}

/**
 * Sampling from the model under test, as an OpenAI-compatible endpoint offers it: `n` completions of a prompt at
 * a temperature (chat `n`, or n requests with seeds seed, seed+1, …). Temperature 0 asks for the greedy answer.
 */
export interface Sampler {
  sample(prompt: string, opts: { n: number; temperature: number; seed: number; maxTokens: number }): Promise<string[]>;
}

/**
 * The model's own probability of an answer, read token by token (a local engine, teacher-forced): the natural log
 * of P(answer, then end of turn | prompt as a user message).
 */
export interface AnswerScorer {
  /** What it is, for the record (e.g. the engine and file). */
  readonly name: string;
  logprob(prompt: string, answer: string): Promise<number>;
}

export interface MethodContext {
  /** The model's own sampler (methods that consult the model). */
  sampler?: Sampler;
  /** The model's token probabilities (a local engine): methods that can use them act on them directly. */
  scorer?: AnswerScorer;
  seed: number;
}

export interface Method {
  readonly name: string;
  prepare(req: MethodRequest, ctx: MethodContext): Promise<PreparedMethod>;
}

export const baseline: Method = {
  name: 'baseline',
  async prepare(req) {
    return { request: req, toOriginal: (c) => c, meta: {} };
  },
};
