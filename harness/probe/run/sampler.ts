import type { Sampler } from '../../methods/types.ts';
import type { ModelClient } from '../../model/client.ts';

/**
 * A method's sampler on the model under test, with what every OpenAI-compatible endpoint offers: `n` chat
 * requests with seeds seed, seed+1, … (the `n` parameter is not served everywhere). Requests carry the instance
 * `probe:<method>` and the variant `<method>`, so the simulator (and the request cache) tell them apart.
 */
export function chatSampler(client: ModelClient, method: string, topP?: number): Sampler {
  return {
    async sample(prompt, { n, temperature, seed, maxTokens }) {
      const asks = Array.from({ length: n }, (_, i) =>
        client.chat(
          {
            messages: [{ role: 'user', content: prompt }],
            temperature,
            seed: seed + i,
            maxTokens,
            ...(topP !== undefined ? { topP } : {}),
          },
          { instance: `probe:${method}`, variant: method },
        ),
      );
      return (await Promise.all(asks)).map((r) => r.content ?? '');
    },
  };
}
