/**
 * The engine's prompt and sampling settings from a request body. The server hands what it builds here to the
 * engine as checked (the engine does not validate it again): for every body the schemas of request.ts accept, the
 * request is within the engine's own rules (harness/engine/request-check.ts), or the body is refused with a 400
 * here. sampling.test.ts holds the two to that.
 */
import type { EngineInfo } from '../engine/types.ts';
import type { Sampling } from './generate.ts';
import { HttpError, type ChatBody, type CompletionBody } from './request.ts';

/** /v1/completions: the one prompt (a string, or an array of one). */
export const completionPrompt = (b: CompletionBody): string => (Array.isArray(b.prompt) ? b.prompt[0]! : b.prompt);

/** /v1/completions: `logprobs` is the number of alternatives per token. */
export const completionSampling = (b: CompletionBody, info: Pick<EngineInfo, 'vocabSize' | 'contextSize'>) =>
  sampling(b, info, b.logprobs ?? undefined, b.max_tokens);

/** /v1/chat/completions: `logprobs` a switch, `top_logprobs` the alternatives; either name of the token budget. */
export const chatSampling = (b: ChatBody, info: Pick<EngineInfo, 'vocabSize' | 'contextSize'>) =>
  sampling(b, info, b.logprobs ? (b.top_logprobs ?? 0) : undefined, b.max_tokens ?? b.max_completion_tokens);

/** Defaults follow llama-server's, except the seed (0: reproducible). */
function sampling(
  b: ChatBody | CompletionBody,
  info: Pick<EngineInfo, 'vocabSize' | 'contextSize'>,
  topLogprobs: number | undefined,
  maxTokens: number | undefined,
): Sampling {
  const tokenBias = Object.entries(b.logit_bias ?? {}).map(([k, v]) => {
    const token = Number(k);
    if (token >= info.vocabSize)
      throw new HttpError(400, `invalid field 'logit_bias.${k}': no such token (the vocabulary has ${info.vocabSize})`);
    return { token, bias: v <= -100 ? ('never' as const) : v };
  });
  const stop = b.stop == null ? [] : typeof b.stop === 'string' ? [b.stop] : b.stop;
  const repeat = b.repeat_penalty ?? b.repetition_penalty;
  return {
    temperature: b.temperature ?? 0.8,
    topP: b.top_p ?? 0.95,
    seed: b.seed ?? 0,
    ...(repeat !== undefined ? { repeatPenalty: repeat } : {}),
    // Unset: up to the context's end, as llama-server's n_predict -1.
    maxTokens: maxTokens ?? info.contextSize,
    ...(stop.length ? { stop: stop.filter((x) => x.length > 0) } : {}),
    ...(tokenBias.length ? { tokenBias } : {}),
    ...(topLogprobs !== undefined ? { topLogprobs } : {}),
  };
}
