import { readConfig, type RunConfig } from '../core/config.ts';
import { ModelClient } from '../model/client.ts';
import { createSandbox, type Sandbox } from '../sandbox/index.ts';
import { isSimModel } from '../sim/policy-spec.ts';

/**
 * The per-worker singletons of an eval run: config, the model client (its concurrency limit is the run's) and the
 * sandbox pool. Created on first use and shared by every test file in the worker (the eval project runs with
 * `isolate: false`, so a pyodide pool starts once per run, not once per file).
 */
export interface Runtime {
  cfg: RunConfig;
  client: ModelClient;
  sandbox(): Sandbox;
}

let current: Runtime | undefined;

export function getRuntime(simUrl?: string): Runtime {
  if (current) return current;
  const cfg = readConfig();
  const baseUrl = cfg.baseUrl ?? simUrl ?? cfg.simUrl;
  if (!baseUrl) throw new Error('no endpoint: the simulator was not started by the global setup and no --base-url was given');
  const client = new ModelClient({
    baseUrl,
    apiKey: cfg.apiKey,
    model: cfg.model,
    timeoutMs: cfg.requestTimeoutMs,
    retries: cfg.retries,
    concurrency: cfg.concurrency,
    cache: { mode: cfg.cache, dir: cfg.cacheDir },
    temperature: cfg.temperature,
    maxTokens: cfg.maxTokens,
    // Retries against the local simulator need no politeness delay; a real endpoint gets proper backoff.
    backoff: isSimModel(cfg.model) && !cfg.baseUrl ? { baseMs: 20, maxMs: 200 } : { baseMs: 500, maxMs: 20_000 },
  });
  let sandbox: Sandbox | undefined;
  current = {
    cfg,
    client,
    sandbox: () =>
      (sandbox ??= createSandbox({
        backend: cfg.sandbox.backend,
        poolSize: cfg.sandbox.poolSize,
        callTimeoutMs: cfg.sandbox.toolTimeoutMs,
        pythonPath: cfg.sandbox.pythonPath,
      })),
  };
  const closeSandbox = () => void sandbox?.close();
  process.once('beforeExit', closeSandbox);
  return current;
}
