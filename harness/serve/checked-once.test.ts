// `toolgauge serve` over the real engine (llama.cpp, one thread, a small random-weight test model): a request body is
// validated once, by the server's schemas at its HTTP boundary, and not again by the engine; a body they refuse is
// still a 400 with the same one-line error and never reaches the engine, which still checks every request its
// other callers send it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestModel } from '../engine/gguf/test-model.ts';
import { EngineHost } from '../engine/host.ts';
import { CompleteRequestSchema } from '../engine/request-check.ts';
import { findNodeLlamaCpp } from '../engine/resolve.ts';
import { CompletionBody } from './request.ts';
import { startServe, type ServeHandle } from './server.ts';

const SKIP = findNodeLlamaCpp().found ? undefined : 'node-llama-cpp 3.21.1 is not installed (npm run setup:engine)';

describe.skipIf(SKIP)(`serve checks a body once${SKIP ? ` — SKIPPED: ${SKIP}` : ''}`, () => {
  let dir: string;
  let host: EngineHost;
  let server: ServeHandle;
  const post = async (body: unknown) => {
    const r = await fetch(`${server.url}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, json: (await r.json()) as any };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgauge-checked-once-'));
    writeFileSync(join(dir, 'm.gguf'), buildTestModel({ type: 'F32', template: 'hermes', seed: 3 }));
    host = new EngineHost({ modelPath: join(dir, 'm.gguf'), contextSize: 256, sequences: 1, threads: 1 });
    server = await startServe({ engine: host, alias: 'm' });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a valid body: the server parses it once, the engine does not check it again', async () => {
    const body = vi.spyOn(CompletionBody, 'safeParse');
    const engine = vi.spyOn(CompleteRequestSchema, 'safeParse');
    const r = await post({ prompt: 'hi', max_tokens: 2, temperature: 0, logit_bias: { '5': -100 } });
    expect(r.status).toBe(200);
    expect(r.json.usage.completion_tokens).toBe(2);
    expect(body).toHaveBeenCalledTimes(1);
    expect(engine).not.toHaveBeenCalled();
    // Its other callers' requests are still checked, one line naming the field.
    await expect(host.complete({ prompt: 'hi', maxTokens: 0 })).rejects.toThrow(/^complete: field maxTokens: /);
    expect(engine).toHaveBeenCalledTimes(1);
  });

  it('an invalid body is refused with the same one-line 400 as before, and never reaches the engine', async () => {
    const engine = vi.spyOn(CompleteRequestSchema, 'safeParse');
    const complete = vi.spyOn(host, 'complete');
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
