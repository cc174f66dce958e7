// `toolgauge serve` on the real engine (llama.cpp, one thread, a small random-weight test model) under hostile
// requests: one stuck inside llama.cpp holds only its own slot's engine process (one per slot, as `serveGguf` runs
// them), which is killed at the request's deadline and restarted; ids outside the vocabulary never reach llama.cpp.
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
  /** One engine per slot; slot 0 (the first free one) takes the first request. */
  let hosts: EngineHost[];
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
    hosts = [0, 1].map(
      () => new EngineHost({ modelPath: join(dir, 'm.gguf'), contextSize: 256, sequences: 1, threads: 1 }),
    );
    server = await startServe({ engine: hosts, alias: 'm', parallel: 2, requestTimeoutMs: 3000 });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a short request is answered while an ambiguous grammar holds another slot's engine; only that one restarts", async () => {
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
    const again = await Promise.all([0, 1].map(() => post('/v1/completions', { prompt: 'hi', max_tokens: 2 })));
    expect(again.map((r) => r.status)).toEqual([200, 200]);
    expect(hosts.map((x) => x.starts)).toEqual([2, 1]);
  });

  it('detokenize of ids outside the vocabulary is a 400; the engine is not restarted', async () => {
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
});
