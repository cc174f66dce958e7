/**
 * One generation under a request's constraint. An eager grammar is handed to the engine as is. node-llama-cpp has
 * no lazy grammars, so a lazy one (llama-server's `grammar_lazy` + word triggers) runs in two passes:
 *
 *   1. free decoding, streamed; as soon as the text generated so far contains a trigger word, the pass is stopped;
 *   2. decoding resumes from the prompt plus the text before the trigger, under the grammar, which (as llama.cpp's
 *      lazy grammars require) matches from the trigger on.
 *
 * How faithful that is to llama.cpp: the free text before the trigger is what the model sampled, and from the trigger
 * on every token is constrained, as there. It differs in that (a) the text before the trigger is tokenized again as
 * part of the prompt (a token boundary may fall differently than when it was sampled), (b) the trigger itself is
 * generated again under the grammar (the grammar forces it, so the text is the same), (c) pass 2 starts a new sampler:
 * its random stream and repeat-penalty history restart, and (d) up to one chunk of free text past the trigger is
 * generated and discarded. With temperature 0 only (a) can change an output.
 */
import type { CompleteOptions, CompleteRequest, CompleteResult, Engine } from '../engine/types.ts';
import type { Constraint } from './constraint.ts';

export type Sampling = Omit<CompleteRequest, 'prompt' | 'grammar'>;

/** Where the first trigger starts in `text`, or -1. */
export function firstTrigger(text: string, triggers: readonly string[]): number {
  let at = -1;
  for (const t of triggers) {
    const i = text.indexOf(t);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  return at;
}

/**
 * `signal` (the request's deadline or its client's disconnect) stops the generation in either pass. `checked`: the
 * caller has held `prompt` and `s` to the engine's rules (types.ts); the second pass's request is built from them
 * within those rules (a longer prompt, a grammar, a positive token budget), so it is passed on as checked too.
 */
export async function generate(
  engine: Engine,
  prompt: string,
  c: Constraint,
  s: Sampling,
  { signal, checked }: Pick<CompleteOptions, 'signal' | 'checked'> = {},
): Promise<CompleteResult> {
  const opts = { ...(signal ? { signal } : {}), ...(checked ? { checked } : {}) };
  if (!c.grammar || !c.triggers?.length)
    return engine.complete({ ...s, prompt, ...(c.grammar ? { grammar: c.grammar } : {}) }, opts);
  const triggers = c.triggers;
  const abort = new AbortController();
  signal?.addEventListener('abort', () => abort.abort(), { once: true });
  let streamed = '';
  let cut = -1;
  let free: CompleteResult | undefined;
  try {
    free = await engine.complete(
      { ...s, prompt },
      {
        signal: abort.signal,
        ...(checked ? { checked } : {}),
        onChunk: (chunk) => {
          if (cut >= 0) return;
          streamed += chunk.text;
          cut = firstTrigger(streamed, triggers);
          if (cut >= 0) abort.abort();
        },
      },
    );
  } catch (err) {
    if (cut < 0 || signal?.aborted) throw err;
  }
  if (cut < 0 && free) {
    // The engine finished before the abort took effect (or sent no chunks): look in the whole text.
    cut = firstTrigger(free.text, triggers);
    if (cut < 0) return free;
    streamed = free.text;
  }
  const before = streamed.slice(0, cut);
  const [promptTokens, beforeTokens] = await Promise.all([
    engine.tokenize(prompt),
    before ? engine.tokenize(before, { specialTokens: true }) : Promise.resolve([] as number[]),
  ]);
  const budget = s.maxTokens ?? 256;
  const left = budget - beforeTokens.length;
  if (left <= 0) {
    return {
      text: before,
      tokens: beforeTokens,
      finishReason: 'length',
      usage: { promptTokens: promptTokens.length, completionTokens: beforeTokens.length },
    };
  }
  const rest = await engine.complete({ ...s, prompt: prompt + before, grammar: c.grammar, maxTokens: left }, opts);
  return {
    text: before + rest.text,
    tokens: [...beforeTokens, ...rest.tokens],
    finishReason: rest.finishReason,
    usage: { promptTokens: promptTokens.length, completionTokens: beforeTokens.length + rest.usage.completionTokens },
  };
}
