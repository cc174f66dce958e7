// The built-in suites' matchers (the package subpath 'toolgauge/matchers'), registered with Vitest's expect on import.
import { mazeVerdict } from '../maze/suite.ts';
import type { MazeMeta } from '../maze/meta.ts';
import { probeMatchers, type ProbeMatchers } from '../probe/matchers.ts';
import { toolhopVerdict } from '../toolhop/suite.ts';
import type { ToolhopMeta } from '../toolhop/meta.ts';
import { extendMatchers } from '../vitest/matchers.ts';

/**
 * The built-in suites' matchers, registered with Vitest's `expect` when the public API is imported:
 *   expect(meta).toBeCorrectToolhopAnswer()   expect(meta).toPassMaze()
 *   expect(text).toBeParsedCall({ tier })     expect(calls).toMatchCall(expected, rules)
 *   expect(meta).toBeAttributedTo(cause)      expect(meta).toPassProbeCase()
 */
extendMatchers({
  ...probeMatchers,
  toBeCorrectToolhopAnswer(received: ToolhopMeta) {
    const v = toolhopVerdict(received);
    return { pass: v.pass, message: () => v.message, actual: received.predicted, expected: received.gold };
  },
  toPassMaze(received: MazeMeta) {
    const v = mazeVerdict(received);
    return { pass: v.pass, message: () => v.message };
  },
});

interface SuiteMatchers<R = unknown> extends ProbeMatchers<R> {
  toBeCorrectToolhopAnswer(): R;
  toPassMaze(): R;
}

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: a declaration merge must repeat Vitest's own `Matchers<T = any>`
  interface Matchers<T = any> extends SuiteMatchers<T> {}
}
