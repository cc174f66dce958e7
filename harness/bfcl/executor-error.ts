// The executor's own failure type, apart from executor.ts so that the checker and the scorer can tell it from
// other errors without loading the worker's process machinery.
import type { CaseOutcome } from './executor.ts';

/** A failure of the executor itself (worker died, timed out, refused a request) — not a model error. */
export class ExecutorError extends Error {
  override name = 'ExecutorError';
  /** A batched case's turns that ran before the failure (see runCases), when there were any. */
  ranBefore?: CaseOutcome['turns'];
}
