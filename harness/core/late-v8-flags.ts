import { setFlagsFromString } from 'node:v8';

// V8 refuses Node's built-in code cache once any of its flags differs from the values Node was built with: every Node
// module loaded after such a flag is set is compiled from source (docs/benchmarks.md, "The test suite's own cost").
// A flag that matters only once a run has grown (how far the old generation grows between full collections) is
// therefore handed over by the process's entry point and set once the run's modules are loaded. The hand-over is a
// property of this thread's global object, so that the eval worker's CommonJS entry
// (harness/vitest/eval-worker-start.cjs) can make it too; a child process or another thread never sees it.

/** The name of the global symbol the flags are handed over under (Symbol.for). */
export const LATE_V8_FLAGS_KEY = 'toolgauge.lateV8Flags';

type Holder = Record<symbol, readonly string[] | undefined>;

/** Hold `flags` on this thread's global object under the symbol `Symbol.for(key)` (none: nothing is held). */
export function holdV8Flags(key: string, flags: readonly string[]): void {
  if (flags.length) (globalThis as unknown as Holder)[Symbol.for(key)] = [...flags];
}

/** Set the flags held under `key`, once (none held: nothing is set). `set` is V8's, or a test's recorder. */
export function setHeldV8Flags(key: string, set: (flag: string) => void = setFlagsFromString): void {
  const holder = globalThis as unknown as Holder;
  const sym = Symbol.for(key);
  const flags = holder[sym];
  if (!flags) return;
  delete holder[sym];
  for (const f of flags) set(f);
}

/** Hold `flags` until setLateV8Flags: the process's entry point, before the run's modules load. */
export function deferV8Flags(flags: readonly string[]): void {
  holdV8Flags(LATE_V8_FLAGS_KEY, flags);
}

/** Set the flags deferV8Flags held, once (none held: nothing is set). `set` is V8's, or a test's recorder. */
export function setLateV8Flags(set: (flag: string) => void = setFlagsFromString): void {
  setHeldV8Flags(LATE_V8_FLAGS_KEY, set);
}
