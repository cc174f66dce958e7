import { registerRunSecrets, type RunConfig } from '../core/config.ts';
import { ModelClient } from '../model/client.ts';
import type { Sandbox, SandboxBackend, SandboxOptions } from '../sandbox/index.ts';
import type { SandboxAddress } from '../sandbox/remote.ts';
import { sandboxOptionsOf } from './sandbox-options.ts';
import { isSimModel } from '../sim/policy-spec.ts';

/**
 * How a runtime makes its sandbox. The suites that run sandboxed tools provide it (by importing
 * harness/kit/sandboxed.ts), so a process whose suites never do — a describeEval run's worker — does not load the
 * sandbox (its pool, launchers and execa: about 120 modules).
 */
export interface SandboxFactory {
  create(options: SandboxOptions): Sandbox;
  connect(address: SandboxAddress, backend: SandboxBackend): Sandbox;
}
let sandboxFactory: SandboxFactory | undefined;

export function provideSandbox(factory: SandboxFactory): void {
  sandboxFactory = factory;
}

/**
 * The per-process singletons of an eval run: the model client (its concurrency limit is the run's) and the sandbox
 * pool, created on first use and shared by every test file in the worker (the eval project runs with
 * `isolate: false`, so a pyodide pool starts once per run, not once per file).
 */
export interface Runtime {
  client(): ModelClient;
  sandbox(): Sandbox;
  close(): Promise<void>;
}

let current: { key: string; runtime: Runtime } | undefined;

/**
 * The shared runtime of this process for this run (Vitest workers: every test file of the run uses it). With
 * `sandboxSocket` its sandbox is the one the run's main process serves (harness/sandbox/remote.ts).
 */
export function runtimeFor(run: RunConfig, simUrl: string | undefined, sandboxSocket?: SandboxAddress): Runtime {
  const key = JSON.stringify([run, run.baseUrl ?? simUrl, sandboxSocket]);
  if (current?.key === key) return current.runtime;
  void current?.runtime.close();
  const runtime = createRuntime(run, simUrl, { sandboxSocket });
  current = { key, runtime };
  process.once('beforeExit', () => void runtime.close());
  return runtime;
}

/** A runtime of its own (an in-process run beside others): the caller closes it. */
export function createRuntime(
  run: RunConfig,
  simUrl: string | undefined,
  opts: { sandboxSocket?: SandboxAddress | undefined } = {},
): Runtime {
  const baseUrl = run.baseUrl ?? simUrl;
  // This process may have the config from the global setup rather than from parsing it: register its secrets here.
  registerRunSecrets(run);
  let client: ModelClient | undefined;
  let sandbox: Sandbox | undefined;
  const runtime: Runtime = {
    client() {
      if (!baseUrl)
        throw new Error('no endpoint: the simulator was not started by the global setup and no --base-url was given');
      return (client ??= new ModelClient({
        baseUrl,
        apiKey: run.apiKey,
        model: run.model,
        timeoutMs: run.requestTimeoutMs,
        retries: run.retries,
        deadlineMs: run.requestDeadlineMs,
        concurrency: run.concurrency,
        cache: { mode: run.cache, dir: run.cacheDir },
        temperature: run.temperature,
        maxTokens: run.maxTokens,
        // Retries against the local simulator need no politeness delay; a real endpoint gets proper backoff.
        backoff: isSimModel(run.model) && !run.baseUrl ? { baseMs: 20, maxMs: 200 } : { baseMs: 500, maxMs: 20_000 },
      }));
    },
    sandbox() {
      if (!sandboxFactory)
        throw new Error(
          'no sandbox in this process: a suite that runs sandboxed tools imports harness/kit/sandboxed.ts',
        );
      const f = sandboxFactory;
      return (sandbox ??= opts.sandboxSocket
        ? f.connect(opts.sandboxSocket, run.sandbox.backend)
        : f.create(sandboxOptionsOf(run)));
    },
    async close() {
      await sandbox?.close();
    },
  };
  return runtime;
}
