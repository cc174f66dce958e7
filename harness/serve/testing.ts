// `toolgauge serve` over the real engine for tests: a small random-weight test model (its outputs are noise, only
// the plumbing is under test) in a temporary folder, one EngineHost per slot as `serveGguf` runs them (one thread,
// a short context), and a JSON POST helper.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTestModel } from '../engine/gguf/test-model.ts';
import { EngineHost } from '../engine/host.ts';
import { findNodeLlamaCpp } from '../engine/resolve.ts';
import { startServe, type ServeHandle } from './server.ts';

/** Why the engine's tests skip here, or undefined when node-llama-cpp is installed. */
export const ENGINE_SKIP = findNodeLlamaCpp().found
  ? undefined
  : 'node-llama-cpp 3.21.1 is not installed (npm run setup:engine)';

// biome-ignore lint/suspicious/noExplicitAny: a response body the tests read field by field, as `fetch`'s json() gives it
type Json = any;

export interface ServedTestModel {
  /** One engine per slot; slot 0 (the first free one) takes the first request. */
  hosts: EngineHost[];
  server: ServeHandle;
  /** POST a JSON body to `path` under the server's root (`/v1/completions`, `/detokenize`). */
  post(path: string, body: unknown): Promise<{ status: number; json: Json }>;
  /** Stops the server (and its engines) and removes the model's folder. */
  close(): Promise<void>;
}

export async function serveTestModel(o: { slots: number; requestTimeoutMs?: number }): Promise<ServedTestModel> {
  const dir = mkdtempSync(join(tmpdir(), 'toolgauge-serve-test-'));
  const modelPath = join(dir, 'm.gguf');
  writeFileSync(modelPath, buildTestModel({ type: 'F32', template: 'hermes', seed: 3 }));
  const hosts = Array.from(
    { length: o.slots },
    () => new EngineHost({ modelPath, contextSize: 256, sequences: 1, threads: 1 }),
  );
  let server: ServeHandle | undefined;
  const close = async () => {
    await (server ? server.close() : Promise.all(hosts.map((h) => h.close())));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    server = await startServe({
      engine: hosts,
      alias: 'm',
      parallel: o.slots,
      ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
    });
  } catch (err) {
    await close();
    throw err;
  }
  const root = server.url.replace(/\/v1$/, '');
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${root}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: r.status, json: (await r.json()) as Json };
  };
  return { hosts, server, post, close };
}
