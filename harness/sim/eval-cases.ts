import { z } from 'zod';

/**
 * What a describeEval run hands the simulator before its cases run (`POST /v1/toolgauge/evals/<name>`): each case's
 * id, input, expected answer and expected tool calls, so the generic eval responder (eval-responder.ts) can play it.
 * A predicate's arguments cannot travel: such a call is sent by name only.
 */

/** An eval's name as the route takes it (describeEval's own rule, bounded). */
export const EVAL_NAME = /^[A-Za-z0-9][\w.-]{0,199}$/;

/** The most cases one registration may carry, and the most evals one simulator keeps. */
export const MAX_EVAL_CASES = 100_000;
export const MAX_EVALS = 1_000;

const InputMessage = z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']) }).passthrough();

export const RegisteredCase = z
  .object({
    id: z.string().min(1),
    /** The case's input when it is a string or a message list (another input is matched by the header only). */
    input: z.union([z.string(), z.array(InputMessage)]).optional(),
    /** Any JSON value; absent when the case has none. */
    expected: z.unknown().optional(),
    expectedTools: z
      .array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()).optional() }).strict())
      .max(1_000)
      .optional(),
  })
  .strict();
export type RegisteredCase = z.infer<typeof RegisteredCase>;

export const EvalRegistration = z.object({ cases: z.array(RegisteredCase).max(MAX_EVAL_CASES) }).strict();
export type EvalRegistration = z.infer<typeof EvalRegistration>;

/** The route's path under the base URL (which ends in `/v1`). */
export const evalRoute = (name: string): string => `/toolgauge/evals/${encodeURIComponent(name)}`;
