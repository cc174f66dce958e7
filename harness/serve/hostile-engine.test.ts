// `toolgauge serve` on the real engine (llama.cpp, one thread, a small random-weight test model) under hostile
// requests: one stuck inside llama.cpp does not hold the server, and ids outside the vocabulary never reach it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestModel } from '../engine/gguf/test-model.ts';
import { EngineHost } from '../engine/host.ts';
import { findNodeLlamaCpp } from '../engine/resolve.ts';
import { startServe, type ServeHandle } from './server.ts';

const SKIP = findNodeLlamaCpp().found ? undefined : 'node-llama-cpp 3.21.1 is not installed (npm run setup:engine)';

/** Every step forces an `x` and leaves three ways to close it: llama.cpp's parse stacks triple per token. */
export const AMBIGUOUS_GRAMMAR = 'root ::= a\na ::= "x" a "y" | "x" a "z" | "x" a "w"';

describe.skipIf(SKIP)(`serve under hostile requests on a test model${SKIP ? ` — SKIPPED: ${SKIP}` : ''}`, () => {
  let dir: string;
  let host: EngineHost;
  let server: ServeHandle;
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${server.url.replace(/\/v1$/, '')}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, json: (await r.json()) as any };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgauge-hostile-'));
    writeFileSync(join(dir, 'm.gguf'), buildTestModel({ type: 'F32', template: 'hermes', seed: 3 }));
    host = new EngineHost({ modelPath: join(dir, 'm.gguf'), contextSize: 256, sequences: 2, threads: 1 });
    server = await startServe({ engine: host, alias: 'm', parallel: 2, requestTimeoutMs: 3000 });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a short request sent while an ambiguous grammar holds the engine completes; the stuck one ends at its deadline', async () => {
    let hostileDone = false;
    const hostile = post('/v1/completions', { prompt: 'hi', grammar: AMBIGUOUS_GRAMMAR, max_tokens: 200 }).then(
      (r) => ((hostileDone = true), r),
    );
    // Well inside the hostile request's 3 s: it is stuck in llama.cpp by now (its stacks triple per token).
    await new Promise((r) => setTimeout(r, 2000));
    expect(hostileDone).toBe(false);
    const short = await post('/v1/completions', { prompt: 'hi', max_tokens: 2, temperature: 0 });
    expect(short.status).toBe(200);
    expect(short.json.usage.completion_tokens).toBeGreaterThan(0);
    const h = await hostile;
    expect(h.status).toBe(504);
    expect(h.json.error.message).toMatch(/longer than 3000 ms/);
  });

  it('detokenize of ids outside the vocabulary is a 400; the engine is not restarted', async () => {
    const starts = host.starts;
    const vocab = (await host.info()).vocabSize;
    for (const id of [vocab, 2 ** 31, 2 ** 32 + 5]) {
      const r = await post('/detokenize', { tokens: [id] });
      expect(r.status).toBe(400);
    }
    await expect(host.detokenize([vocab])).rejects.toThrow(
      /^detokenize: field \[0\]: not a token id \(the vocabulary has \d+\)/,
    );
    expect((await post('/detokenize', { tokens: [5] })).status).toBe(200);
    expect(host.starts).toBe(starts);
  });
});
