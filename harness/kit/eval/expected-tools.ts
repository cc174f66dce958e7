import { z } from 'zod';
import { firstZodIssue } from '../../core/errors.ts';
import { ArgRuleSchema } from '../../match/types.ts';
import type { ExpectedToolCall, ToolCallsMatch } from './types.ts';

/**
 * A case's `expectedTools` and `expectedToolsMatch` checked where they enter the scorer (a JavaScript eval has no
 * compiler to do it), and written into the case's trace as plain JSON (a predicate as `"(function)"`).
 */

const isFunction = (v: unknown): v is (actual: Record<string, unknown>) => boolean => typeof v === 'function';

const ExpectedToolCallSchema = z
  .object({
    name: z.string().min(1),
    arguments: z
      .union(
        [
          z.record(z.string(), z.unknown()),
          z.custom<(actual: Record<string, unknown>) => boolean>(isFunction, 'expected a function'),
        ],
        { error: 'expected an object of arguments or a function of the actual arguments' },
      )
      .optional(),
    rules: z.record(z.string(), ArgRuleSchema).optional(),
  })
  .strict();

const ExpectedToolsSchema = z.array(ExpectedToolCallSchema);

const ToolCallsMatchSchema = z
  .object({ order: z.enum(['strict', 'any', 'subset']).optional(), args: z.enum(['exact', 'subset']).optional() })
  .strict();

/** Parse a value with a schema, or throw one line naming the field (`the case's expectedTools[0].name: …`). */
function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = firstZodIssue(r.error);
  const at = issue.field ? `${field}${issue.field.startsWith('[') ? '' : '.'}${issue.field}` : field;
  throw new Error(`${at}: ${issue.message}`);
}

/** The case's expected calls, checked; undefined when the case declares none (the scorer leaves it unscored). */
export function readExpectedTools(value: unknown): readonly ExpectedToolCall[] | undefined {
  if (value === undefined) return undefined;
  return parseOrThrow(ExpectedToolsSchema, value, "the case's expectedTools") as ExpectedToolCall[];
}

/** Comparison modes (a case's `expectedToolsMatch`, the scorer's options), checked; {} when absent. */
export function readToolCallsMatch(value: unknown, field = "the case's expectedToolsMatch"): ToolCallsMatch {
  if (value === undefined) return {};
  return parseOrThrow(ToolCallsMatchSchema, value, field);
}

/**
 * The expected calls for the trace file (the viewer shows them beside the actual ones): JSON, each function (a
 * predicate in `arguments`) as `"(function)"`. Whatever the case holds is written, checked or not: the trace shows
 * the case as given.
 */
export function expectedToolsJson(tools: unknown): unknown {
  const json = JSON.stringify(tools, (_key, v: unknown) => (typeof v === 'function' ? '(function)' : v));
  return json === undefined ? null : JSON.parse(json);
}
