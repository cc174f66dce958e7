import type { RunConfig } from '../core/config.ts';
import { createSandbox, type Sandbox, type SandboxOptions } from '../sandbox/index.ts';
import { sandboxOptionsOf } from './sandbox-options.ts';

// The setup file runs before every test file; the pool starts once per options and waits here to be adopted.
const started = new Set<string>();
let parked: { key: string; sandbox: Sandbox } | undefined;

/**
 * Start this process's sandbox workers now, before anything asks for them: a test worker calls this first thing, so
 * the interpreter boots while the suite's modules load and its dataset is read. The pool waits, unowned, for the
 * runtime of the same run to adopt it; one nobody adopts is closed when the process is about to exit. Returns the
 * pool it started, or undefined when one was already started for these options.
 */
export function prewarmSandbox(options: SandboxOptions): Sandbox | undefined {
  const key = JSON.stringify(options);
  if (started.has(key)) return undefined;
  started.add(key);
  const sandbox = createSandbox(options);
  parked = { key, sandbox };
  void sandbox.warm().catch(() => undefined); // a worker that cannot start fails the first call, with its reason
  process.once('beforeExit', () => {
    if (parked?.sandbox === sandbox) {
      parked = undefined;
      void sandbox.close();
    }
  });
  return sandbox;
}

/** The prewarmed sandbox of this run's options, handed over once (the caller owns and closes it), or undefined. */
export function adoptPrewarmedSandbox(run: RunConfig): Sandbox | undefined {
  if (parked?.key !== JSON.stringify(sandboxOptionsOf(run))) return undefined;
  const { sandbox } = parked;
  parked = undefined;
  return sandbox;
}
