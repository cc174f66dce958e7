import { expect } from 'vitest';
import type { MazeMeta } from '../maze/meta.ts';
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
  toPassMaze(received: MazeMeta) {
    const pass = received.pass && !received.error;
    const header = `maze ${received.complexity} ${received.task_id} ${received.mode}`;
    return {
      pass,
      message: () =>
        pass
          ? `${header}: expected a failure, but the run passed (${received.recovery})`
          : received.error
            ? `${header}: harness error: ${received.error}`
            : `${header}: ${received.failure_reason}\n  hit a perturbation: ${received.hit} · recovery: ${received.recovery} · RC ${received.rc.toFixed(2)} (C_act ${received.c_act}, C_oracle ${received.c_oracle}) · ${received.tool_calls} tool calls`,
    };
  },
});

interface ToolgaugeMatchers<R = unknown> {
  toBeCorrectToolhopAnswer(): R;
  toPassMaze(): R;
}

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Matchers<T = any> extends ToolgaugeMatchers<T> {}
}
