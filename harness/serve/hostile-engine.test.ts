// `toolgauge serve` on the real engine (llama.cpp, one thread, a small random-weight test model) under hostile
// requests: one stuck inside llama.cpp holds only its own slot's engine process (one per slot, as `serveGguf` runs
// them), which is killed at the request's deadline and restarted; ids outside the vocabulary never reach llama.cpp.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_SKIP, type ServedTestModel, serveTestModel } from './testing.ts';

/**
 * Every step forces an `x` and leaves three ways to close it: llama.cpp's parse stacks triple per token, and each
 * token takes about three times the last. The request's deadline (3 s) must fall inside a token that outlasts the
 * abort's 1 s grace, or the abort is honoured and nothing restarts: an eightfold grammar with a shorter deadline
 * failed that way in two of two whole runs (a token ending inside the window).
 */
export const AMBIGUOUS_GRAMMAR = 'root ::= a\na ::= "x" a "y" | "x" a "z" | "x" a "w"';

describe.skipIf(ENGINE_SKIP)(
  `serve under hostile requests on a test model${ENGINE_SKIP ? ` — SKIPPED: ${ENGINE_SKIP}` : ''}`,
  () => {
    let served: ServedTestModel;
    beforeAll(async () => {
      served = await serveTestModel({ slots: 2, requestTimeoutMs: 3000 });
      // Both children loaded first, so that no request's deadline is spent loading the model.
      // Both children loaded first: no request's deadline is spent loading the model.
      await Promise.all(served.hosts.map((h) => h.info()));
    });
    afterAll(() => served?.close());

    it("a short request is answered while an ambiguous grammar holds another slot's engine; only that one restarts", async () => {
      const { hosts, post } = served;
      expect(hosts.map((h) => h.starts)).toEqual([1, 1]);
      const order: string[] = [];
      const hostile = post('/v1/completions', { prompt: 'hi', grammar: AMBIGUOUS_GRAMMAR, max_tokens: 200 }).then(
        (r) => (order.push('hostile'), r),
      );
      // Well inside the hostile request's 3 s deadline, it is stuck in llama.cpp by now (its stacks triple per token).
      await new Promise((r) => setTimeout(r, 2000));
      const short = await post('/v1/completions', { prompt: 'hi', max_tokens: 2, temperature: 0 });
      order.push('short');
      expect(short.status).toBe(200);
      expect(short.json.usage.completion_tokens).toBeGreaterThan(0);
      const h = await hostile;
      // The short one was answered while the hostile one was still stuck; that one, deaf to its abort, had its child
      // killed.
      expect(order).toEqual(['short', 'hostile']);
      expect(h.status).toBe(504);
      expect(h.json.error.message).toMatch(/longer than 3000 ms/);
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
