import { expect } from 'vitest';
import type { ToolhopMeta } from './meta.ts';

/**
 * Custom matchers that turn a scored instance into a pass/fail with a message a person can act on: gold vs
 * predicted for a wrong answer, the harness error for an error.
 */
expect.extend({
  toBeCorrectToolhopAnswer(received: ToolhopMeta) {
    const pass = received.correct && !received.error;
    const header = `toolhop ${received.id}${received.trial ? ` (trial ${received.trial})` : ''}`;
    return {
      pass,
      message: () =>
        pass
          ? `${header}: expected a wrong answer, but '${received.predicted}' is correct (${received.rule})`
          : received.error
            ? `${header}: harness error: ${received.error}`
            : `${header}: wrong answer\n  gold:      ${received.gold}\n  predicted: ${received.predicted}\n  (${received.turns} turns, ${received.tool_calls} tool calls, ${received.tool_errors} tool errors${received.forced_final ? ', final answer forced' : ''})`,
      actual: received.predicted,
      expected: received.gold,
    };
  },
});

interface ToolgaugeMatchers<R = unknown> {
  toBeCorrectToolhopAnswer(): R;
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Matchers<T = any> extends ToolgaugeMatchers<T> {}
}
