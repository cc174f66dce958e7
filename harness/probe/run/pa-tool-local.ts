/**
 * PA-Tool's name selection on a local engine: the model's log-probability of an answer to a naming prompt, read
 * token by token (teacher-forced) from the GGUF file's engine — the prompt as a user message under the file's own
 * chat template, the answer, then the end of the turn (so a name is scored as a whole answer, not as a prefix of a
 * longer one).
 */
import type { AnswerScorer } from '../../methods/types.ts';
import { renderChat } from '../../templates/index.ts';
import { localEngine, type EngineSource } from './quant-damage-run.ts';

/** `source`: the run's servers and engine settings (runEngineSource); without it, an engine of this process's own. */
export function engineScorer(path: string, injectedDate: string, source?: EngineSource): AnswerScorer {
  const now = new Date(`${injectedDate}T09:30:00Z`);
  return {
    name: `llama.cpp token probabilities of ${path}`,
    async logprob(prompt, answer) {
      const { engine, info } = await localEngine(path, source);
      if (!info.chatTemplate) throw new Error(`pa_tool: ${path} has no chat template (tokenizer.chat_template)`);
      const rendered = renderChat(info.chatTemplate, {
        messages: [{ role: 'user', content: prompt }],
        addGenerationPrompt: true,
        now,
      });
      const r = await engine.nextTokenDistributions({
        prompt: rendered,
        continuation: answer + (info.eosToken ?? ''),
        topK: 1,
      });
      return r.steps.slice(0, r.tokens.length).reduce((s, x) => s + (x.logprob ?? Number.NEGATIVE_INFINITY), 0);
    },
  };
}
