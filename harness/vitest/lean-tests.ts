import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

// Vitest keeps each test's function (the body, its closures, a captured stack trace and fixture wrappers) in a map
// from the test until the file ends: several kilobytes a test, 10^5 tests a large part of the worker's heap. A test
// that will not run again can have it replaced once it has started: the running call keeps what it needs, and the
// rest is collected when it returns. Vitest 4.1's public `TestRunner.setTestFn` is its getter by mistake, so the
// setter is taken from the very `@vitest/runner` module Vitest itself loads (resolved from Vitest's own folder);
// without it nothing is released and nothing else changes.

type SetFn = (task: object, fn: () => unknown) => void;

let setFn: SetFn | null | undefined;

/** The runner's `setFn`, or null where it cannot be found (another layout, another Vitest). */
export async function loadSetFn(): Promise<SetFn | null> {
  if (setFn !== undefined) return setFn;
  try {
    const fromVitest = createRequire(createRequire(import.meta.url).resolve('vitest'));
    const mod = (await import(pathToFileURL(fromVitest.resolve('@vitest/runner')).href)) as { setFn?: unknown };
    setFn = typeof mod.setFn === 'function' ? (mod.setFn as SetFn) : null;
  } catch {
    setFn = null;
  }
  return setFn;
}

const RELEASED = () => {
  throw new Error('toolgauge: this test has run; its function was released (retries and repeats keep theirs)');
};

/** Drop a started test's function from Vitest's map, unless Vitest may call it again (a retry, a repeat). */
export function releaseTestFn(task: { retry?: number | { count?: number }; repeats?: number }): void {
  const retries = typeof task.retry === 'object' ? (task.retry.count ?? 0) : (task.retry ?? 0);
  if (setFn && !retries && !task.repeats) setFn(task, RELEASED);
}

/**
 * Run `register` (a loop of `test(…)` calls) with no stack traces captured: Vitest captures a ten-frame stack for
 * every test it registers (for a timeout's message and the test's location in the file), half a kilobyte a test,
 * and every test of a suite block is registered from the same line. V8 captures a stack only while
 * `Error.stackTraceLimit` is a number held as data, so for the synchronous loop it is an accessor that reads 0 and
 * ignores writes (Vitest's own `Error.stackTraceLimit = 10` around each capture); the original is restored after.
 */
export function registerWithoutStacks<T>(register: () => T): T {
  const original = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
  // With `includeTaskLocation` (the UI, an editor's test explorer) Vitest reads each test's location from that stack.
  if (!original?.configurable || !locationsOff()) return register();
  Object.defineProperty(Error, 'stackTraceLimit', {
    configurable: true,
    enumerable: true,
    get: () => 0,
    set: () => {},
  });
  try {
    return register();
  } finally {
    Object.defineProperty(Error, 'stackTraceLimit', original);
  }
}

/** Whether this worker's Vitest is known not to locate tests in their file (unknown counts as no). */
function locationsOff(): boolean {
  const state = (globalThis as { __vitest_worker__?: { config?: { includeTaskLocation?: unknown } } })
    .__vitest_worker__;
  return !!state?.config && typeof state.config === 'object' && !state.config.includeTaskLocation;
}
