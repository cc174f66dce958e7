import type { RunPlan } from '../kit/plan.ts';
import { sandboxOptionsOf } from '../kit/sandbox-options.ts';
import type { Sandbox } from '../sandbox/index.ts';

/**
 * A sandbox whose workers began booting before the run was opened: the launcher adopts it (`take`) when it reaches the
 * sandbox step, and whoever started it closes it (`close`) when the launcher never did — a refusal before the lock, a
 * run that stopped early. Closing after the launcher took it does nothing: the run's own close stops it.
 */
export interface EarlySandbox {
  /** The pool, now owned by the caller (the launcher); null once closed. */
  take(): Promise<Sandbox> | null;
  close(): Promise<void>;
}

/**
 * Start the run's sandbox now, when the plan says a suite will call sandboxed tools: a small ToolHop run waits about a
 * second for the pyodide worker to boot, and that boot needs only the plan's sandbox options — not Vitest, the suite's
 * modules or the test worker, which load meanwhile. Undefined when the run needs no sandbox (nothing is started).
 */
export function startSandboxEarly(plan: RunPlan): EarlySandbox | undefined {
  if (!plan.prewarmSandbox || plan.sandboxSocket) return undefined;
  let pool: Promise<Sandbox> | null = import('../sandbox/index.ts').then(({ createSandbox }) => {
    const sandbox = createSandbox(sandboxOptionsOf(plan.run));
    void sandbox.warm().catch(() => undefined); // a worker that cannot start fails the first call, with its reason
    return sandbox;
  });
  pool.catch(() => undefined);
  let taken = false;
  return {
    take() {
      if (!pool) return null;
      taken = true;
      return pool;
    },
    async close() {
      const p = pool;
      pool = null;
      if (!p || taken) return;
      const sandbox = await p.catch(() => null);
      await sandbox?.close();
    },
  };
}
