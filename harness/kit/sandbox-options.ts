import type { RunConfig } from '../core/config.ts';
import type { SandboxOptions } from '../sandbox/index.ts';

/** The sandbox options of a run (one place, so the pool the main process serves and a worker's own agree). */
export function sandboxOptionsOf(run: RunConfig): SandboxOptions {
  return {
    backend: run.sandbox.backend,
    poolSize: run.sandbox.poolSize,
    callTimeoutMs: run.sandbox.toolTimeoutMs,
    pythonPath: run.sandbox.pythonPath,
    confine: run.sandbox.confine,
    snapshot: run.sandbox.snapshot,
  };
}
