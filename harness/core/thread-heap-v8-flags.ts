import { setFlagsFromString } from 'node:v8';
import { holdV8Flags, setHeldV8Flags } from './late-v8-flags.ts';

// The CLI's shebang gives V8 a young-generation flag (`--max-semi-space-size=2`) that V8 reads when a heap is set
// up. Any flag that differs from the values Node was built with makes V8 refuse Node's built-in code cache, so the
// command's process puts the flag back to V8's default once its own heap is set up (bin/toolgauge.mjs): Node's own
// modules then load with the cache while the CLI loads (docs/benchmarks.md, "ToolHop's fixed cost"). A thread this
// process starts sets up a heap of its own, which reads the flag too, and a `resourceLimits` young generation does not
// override it: the eval thread keeps the small young generation it had only if the flag is set again before the
// thread starts. The flags are handed over as a property of this thread's global object, by late-v8-flags.ts's hold and set.

/** The name of the global symbol the flags are handed over under (Symbol.for). */
export const THREAD_HEAP_V8_FLAGS_KEY = 'toolgauge.threadHeapV8Flags';

/** Hold `flags` for the threads this process starts: the process's entry point, having reset them for itself. */
export function holdThreadHeapV8Flags(flags: readonly string[]): void {
  holdV8Flags(THREAD_HEAP_V8_FLAGS_KEY, flags);
}

/**
 * Set the held flags, before a thread of this process is started; they stay set (every later thread's heap reads
 * them too), so this sets them once. `set` is V8's, or a test's recorder.
 */
export function setThreadHeapV8Flags(set: (flag: string) => void = setFlagsFromString): void {
  setHeldV8Flags(THREAD_HEAP_V8_FLAGS_KEY, set);
}
