// `toolgauge serve` over the real engine (llama.cpp, one thread, a small random-weight test model): a request body is
// validated once, by the server's schemas at its HTTP boundary, and not again by the engine; a body they refuse is
// still a 400 with the same one-line error and never reaches the engine, which still checks every request its
// other callers send it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CompleteRequestSchema } from '../engine/request-check.ts';
import { CompletionBody } from './request.ts';
import { ENGINE_SKIP, type ServedTestModel, serveTestModel } from './testing.ts';

describe.skipIf(ENGINE_SKIP)(`serve checks a body once${ENGINE_SKIP ? ` — SKIPPED: ${ENGINE_SKIP}` : ''}`, () => {
  let served: ServedTestModel;
  const post = (body: unknown) => served.post('/v1/completions', body);

  beforeAll(async () => {
    served = await serveTestModel({ slots: 1 });
  });
  afterAll(() => served?.close());

  it('a valid body: the server parses it once, the engine does not check it again', async () => {
    const body = vi.spyOn(CompletionBody, 'safeParse');
    const engine = vi.spyOn(CompleteRequestSchema, 'safeParse');
    const r = await post({ prompt: 'hi', max_tokens: 2, temperature: 0, logit_bias: { '5': -100 } });
    expect(r.status).toBe(200);
    expect(r.json.usage.completion_tokens).toBe(2);
    expect(body).toHaveBeenCalledTimes(1);
    expect(engine).not.toHaveBeenCalled();
    // Its other callers' requests are still checked, one line naming the field.
    await expect(served.hosts[0]!.complete({ prompt: 'hi', maxTokens: 0 })).rejects.toThrow(
      /^complete: field maxTokens: /,
    );
    expect(engine).toHaveBeenCalledTimes(1);
  });

  it('an invalid body is refused with the same one-line 400 as before, and never reaches the engine', async () => {
    const engine = vi.spyOn(CompleteRequestSchema, 'safeParse');
    const complete = vi.spyOn(served.hosts[0]!, 'complete');
    const cases: Array<[unknown, string]> = [
      [{ prompt: 'hi', temperature: 3 }, "invalid field 'temperature': Too big: expected number to be <=2"],
      [{ prompt: 'hi', max_tokens: 0 }, "invalid field 'max_tokens': Too small: expected number to be >=1"],
      [
        { prompt: 'hi', top_k: 5 },
        "unsupported field 'top_k': toolgauge serve does not implement it, and ignoring it could change the result",
      ],
      [{ prompt: 'hi', logit_bias: { '99999': 1 } }, "invalid field 'logit_bias.99999': no such token"],
      // Refused by the engine's check before; by the body's schema now, naming the field the same way.
      [{ prompt: '' }, "invalid field 'prompt': the prompt is empty"],
    ];
    for (const [body, message] of cases) {
      const r = await post(body);
      expect(r.status).toBe(400);
      expect(r.json.error.message).toContain(message);
    }
    expect(complete).not.toHaveBeenCalled();
    expect(engine).not.toHaveBeenCalled();
  });
});
