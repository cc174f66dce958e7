import { expect } from 'vitest';
import type { InstanceMetaBase, Verdict } from '../kit/types.ts';

/** A matcher written as a pure function (suites define these without importing Vitest). */
export type MatcherFn = (
  // biome-ignore lint/suspicious/noExplicitAny: the signature Vitest's expect.extend gives a matcher
  received: any,
  // biome-ignore lint/suspicious/noExplicitAny: likewise
  ...args: any[]
) => { pass: boolean; message: () => string; actual?: unknown; expected?: unknown };

/** Register matchers with Vitest's `expect` (the public API does this for every suite's matchers). */
export function extendMatchers(matchers: Record<string, MatcherFn>): void {
  expect.extend(matchers);
}

extendMatchers({
  /** What every generated test asserts: the suite's verdict on the instance, with its message on failure. */
  toPassInstance(received: InstanceMetaBase, verdict: Verdict) {
    return {
      pass: verdict.pass,
      message: () =>
        verdict.pass ? `${received.suite} ${received.id}: expected a failure, but it passed` : verdict.message,
    };
  },
});

interface KitMatchers<R = unknown> {
  toPassInstance(verdict: Verdict): R;
}

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: a declaration merge must repeat Vitest's own `Matchers<T = any>`
  interface Matchers<T = any> extends KitMatchers<T> {}
}
