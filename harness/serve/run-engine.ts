/**
 * The local engine of a `--model gguf:PATH` run: with no endpoint given, the run starts `toolgauge serve` on the
 * file (in this process, on a free loopback port; the model itself runs in the engine's child process) before any
 * test runs, points the run at it, and stops it after. With `--base-url` (a `toolgauge serve` already running, shared
 * by several runs) nothing starts: the server's /v1/models `meta` gives the facts, or, from another server, the
 * file's own header does. Either way the run's header names the engine and the file (harness/core/engine-facts.ts).
 */
import { EngineFacts, ggufPathOf } from '../core/engine-facts.ts';
import type { RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { defaultThreads } from '../engine/defaults.ts';
import type { EngineHostSeams } from '../engine/host.ts';
import { engineMeta, startServe, type ServeHandle } from './server.ts';

export interface RunEngine {
  /** The server's base URL (`…/v1`). */
  url: string;
  facts: EngineFacts;
  close(): Promise<void>;
}

export { defaultThreads } from '../engine/defaults.ts';

/**
 * Start `toolgauge serve` on a GGUF file, in this process, with one engine (one child process, one sequence) per
 * parallel slot: a request stuck inside llama.cpp then stops only its own child, which is killed at the request's
 * deadline and restarted while the other slots serve on. The children memory-map the same file: the weights' pages
 * are shared, each child adds its own context (docs/engine.md).
 */
export async function serveGguf(o: {
  gguf: string;
  host?: string;
  port?: number;
  parallel?: number;
  threads?: number;
  contextSize?: number;
  queue?: number;
  alias?: string;
  /** Each request's deadline, ms, from its arrival (the server's; default 300 000). */
  requestTimeoutMs?: number;
  seams?: EngineHostSeams;
}): Promise<ServeHandle> {
  const { EngineHost } = await import('../engine/host.ts');
  const parallel = o.parallel ?? 1;
  const engines = Array.from(
    { length: parallel },
    () =>
      new EngineHost(
        {
          modelPath: o.gguf,
          threads: o.threads ?? defaultThreads(),
          sequences: 1,
          ...(o.contextSize !== undefined ? { contextSize: o.contextSize } : {}),
        },
        o.seams,
      ),
  );
  try {
    return await startServe({
      engine: engines,
      alias: o.alias ?? `gguf:${o.gguf}`,
      host: o.host ?? '127.0.0.1',
      port: o.port ?? 0,
      parallel,
      ...(o.queue !== undefined ? { queue: o.queue } : {}),
      ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
    });
  } catch (err) {
    await Promise.all(engines.map((e) => e.close().catch(() => undefined)));
    throw err;
  }
}

/** The facts a server serving the file lists under /v1/models `meta`, or null when it lists none. */
async function factsOfServer(baseUrl: string): Promise<EngineFacts | null> {
  try {
    const r = await fetch(`${baseUrl.replace(/\/+$/, '')}/models`, { signal: AbortSignal.timeout(10_000) });
    if (!r.ok) return null;
    const body = (await r.json()) as { data?: Array<{ meta?: unknown }> };
    const parsed = EngineFacts.safeParse(body.data?.[0]?.meta);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * What a gguf: run needs before its tests: null for any other model. `startRun` false: the endpoint is given, only
 * the facts are read. The error when the engine cannot start (node-llama-cpp missing, a bad file) is one line.
 */
export async function prepareRunEngine(
  run: Pick<RunConfig, 'model' | 'baseUrl' | 'engine'>,
  command: string,
  seams?: EngineHostSeams,
): Promise<RunEngine | null> {
  const gguf = ggufPathOf(run.model);
  if (gguf === null) return null;
  if (run.baseUrl) {
    const facts =
      (await factsOfServer(run.baseUrl)) ?? (await factsOfFile(gguf, 'external server (not toolgauge serve)'));
    return { url: run.baseUrl, facts, close: async () => undefined };
  }
  let handle: ServeHandle;
  try {
    handle = await serveGguf({
      gguf,
      ...(seams ? { seams } : {}),
      parallel: run.engine?.parallel ?? 1,
      ...(run.engine?.threads ? { threads: run.engine.threads } : {}),
      ...(run.engine?.contextSize ? { contextSize: run.engine.contextSize } : {}),
    });
  } catch (err) {
    const e = err as Error & { kind?: string };
    throw new UsageError(
      `${command}: --model gguf:${gguf}: ${e.kind === 'missing' ? '' : 'the local engine did not start: '}${e.message}`,
    );
  }
  return { url: handle.url, facts: EngineFacts.parse(engineMeta(handle.info)), close: () => handle.close() };
}

async function factsOfFile(gguf: string, engine: string): Promise<EngineFacts> {
  const { ggufFacts } = await import('../engine/gguf/reader.ts');
  let f: Awaited<ReturnType<typeof ggufFacts>>;
  try {
    f = await ggufFacts(gguf);
  } catch (err) {
    throw new UsageError(`--model gguf:${gguf}: ${(err as Error).message}`);
  }
  return {
    engine,
    llama_cpp_build: null,
    file: f.file,
    sha256: f.sha256,
    tensor_type: f.tensorType,
    chat_template_sha256: f.chatTemplateSha256 ?? null,
    test_model: f.testModel,
  };
}
