/**
 * Vite transforms modules with rolldown's native binding, whose allocator (mimalloc) commits each 1 GiB arena it
 * reserves as it goes: after Vite had transformed an eval's TypeScript modules, about 120 MiB of that arena stayed
 * resident in Vitest's main process for the rest of the run, where with commit on demand about 10 MiB did
 * (docs/benchmarks.md, "Scale"). The allocator reads its options from the environment when the binding is loaded,
 * so this is set before Vitest (and Vite) are; a value the user set is kept. Where the binding has another
 * allocator, the variable means nothing.
 */
export const NATIVE_ALLOCATOR_ENV = 'MIMALLOC_ARENA_EAGER_COMMIT';

export function commitNativeMemoryOnDemand(env: NodeJS.ProcessEnv): void {
  env[NATIVE_ALLOCATOR_ENV] ??= '0';
}
