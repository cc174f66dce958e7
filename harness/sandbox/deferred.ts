import { routeOf } from './auto.ts';
import type { Sandbox, SandboxBackend, SandboxInfo } from './index.ts';

/**
 * A sandbox whose implementation is made on first use by `load` — so a process that is handed a served sandbox
 * (harness/sandbox/remote.ts), as a run's test worker is, never loads the pool, the launchers and execa. Until it
 * is made, its stats and info are those of a sandbox that has started nothing (as a connected one's before its first
 * answer); a failure to make it is each call's rejection.
 */
export function deferredSandbox(backend: SandboxBackend, load: () => Promise<Sandbox>): Sandbox {
  let made: Sandbox | undefined;
  let making: Promise<Sandbox> | undefined;
  const sandbox = () => (making ??= load().then((s) => (made = s)));
  return {
    backend,
    call: async (tool, argumentsJson, opts) => (await sandbox()).call(tool, argumentsJson, opts),
    checkLoad: async (tool) => (await sandbox()).checkLoad(tool),
    route: async (tool) => routeOf(await sandbox(), tool),
    warm: async () => (await sandbox()).warm(),
    stats: () => made?.stats() ?? { workers: 0, starts: 0, restarts: 0, calls: 0, recycled: 0 },
    info: (): SandboxInfo =>
      made?.info() ?? { backend, confinement: [], workerPids: [], lastReady: null, peakRssBytes: 0 },
    async close() {
      // Nothing was made: nothing to close. One being made is closed once it is.
      const s = await making?.catch(() => undefined);
      await s?.close();
    },
  };
}
