// `toolgauge serve` on the real engine (llama.cpp, one thread, a small random-weight test model) under hostile
// requests: one stuck inside llama.cpp holds only its own slot's engine process (one per slot, as `serveGguf` runs
// them), which is killed at the request's deadline and restarted; ids outside the vocabulary never reach llama.cpp.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ENGINE_SKIP, type ServedTestModel, serveTestModel } from './testing.ts';

/**
 * Every step forces an `x` and leaves eight ways to close it: llama.cpp's parse stacks grow eightfold per token, and
 * about the fourth token does not end. (Three ways take some eight tokens, 1.5–2 s on a loaded machine: the deadline
 * must come well after the request is stuck, and the stuck process spins until it is killed.)
 */
export const AMBIGUOUS_GRAMMAR = `root ::= a\na ::= ${['y', 'z', 'w', 'v', 'u', 't', 's', 'r'].map((c) => `"x" a "${c}"`).join(' | ')}`;

describe.skipIf(ENGINE_SKIP)(
  `serve under hostile requests on a test model${ENGINE_SKIP ? ` — SKIPPED: ${ENGINE_SKIP}` : ''}`,
  () => {
    let served: ServedTestModel;
    beforeAll(async () => {
      // The deadline must fall after the hostile request is stuck (a few tokens in; longer on a busy machine): one
      // that falls before it is honoured, and nothing is killed.
      served = await serveTestModel({ slots: 2, requestTimeoutMs: 2000 });
      // Both children loaded first, so that no request's deadline is spent loading the model.
      await Promise.all(served.hosts.map((h) => h.info()));
    });
    afterAll(() => served?.close());

    it("a short request is answered while an ambiguous grammar holds another slot's engine; only that one restarts", async () => {
      const { hosts, post } = served;
      expect(hosts.map((h) => h.starts)).toEqual([1, 1]);
      const order: string[] = [];
      const reached = vi.spyOn(hosts[0]!, 'complete');
      const hostile = post('/v1/completions', { prompt: 'hi', grammar: AMBIGUOUS_GRAMMAR, max_tokens: 200 }).then(
        (r) => (order.push('hostile'), r),
      );
      // The short request goes once the hostile one holds slot 0's engine (stuck in llama.cpp a few tokens later).
      await expect.poll(() => reached.mock.calls.length, { timeout: 60_000 }).toBe(1);
      const short = await post('/v1/completions', { prompt: 'hi', max_tokens: 2, temperature: 0 });
      order.push('short');
      expect(short.status).toBe(200);
      expect(short.json.usage.completion_tokens).toBeGreaterThan(0);
      const h = await hostile;
      // The short one was answered while the hostile one was still stuck; that one, deaf to its abort, had its child
      // killed.
      expect(order).toEqual(['short', 'hostile']);
      expect(h.status).toBe(504);
      expect(h.json.error.message).toMatch(/longer than 2000 ms/);
      // The stuck engine's child was killed and a new one loads at once; the other slot's child was never touched.
      // (the timeout only keeps a hang from stalling the file: a loaded machine loads the model slowly)
      await expect.poll(() => hosts[0]!.starts, { timeout: 60_000 }).toBe(2);
      expect(hosts[1]!.starts).toBe(1);
      // Both slots answer once the new child has loaded (a request waiting for the load would meet the short deadline).
      await expect.poll(() => hosts[0]!.loaded(), { timeout: 60_000 }).toBe(true);
      const again = await Promise.all([0, 1].map(() => post('/v1/completions', { prompt: 'hi', max_tokens: 2 })));
      expect(again.map((r) => r.status)).toEqual([200, 200]);
      expect(hosts.map((x) => x.starts)).toEqual([2, 1]);
    });

    it('detokenize of ids outside the vocabulary is a 400; the engine is not restarted', async () => {
      const { hosts, post } = served;
      const host = hosts[0]!;
      const starts = hosts.map((h) => h.starts);
      const vocab = (await host.info()).vocabSize;
      for (const id of [vocab, 2 ** 31, 2 ** 32 + 5]) {
        const r = await post('/detokenize', { tokens: [id] });
        expect(r.status).toBe(400);
      }
      await expect(host.detokenize([vocab])).rejects.toThrow(
        /^detokenize: field \[0\]: not a token id \(the vocabulary has \d+\)/,
      );
      expect((await post('/detokenize', { tokens: [5] })).status).toBe(200);
      expect(hosts.map((h) => h.starts)).toEqual(starts);
    });
  },
);
