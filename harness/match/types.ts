import { z } from 'zod';

/** How one argument is compared (see rules.ts). Keys are argument paths: `a`, `a.b`, `items[].name`. */
export const ArgRuleSchema = z
  .object({
    /** Accepted values besides the expected one. */
    equiv: z.array(z.unknown()).optional(),
    /** `set`: arrays as sets; `fuzzy` (Toolhound's `semantic`): normalised token overlap of free text. */
    match: z.enum(['exact', 'set', 'fuzzy', 'semantic']).optional(),
    casefold: z.boolean().optional(),
    /** Absolute numeric tolerance. */
    tolerance: z.number().nonnegative().optional(),
    /** ISO 8601 date/datetime compared at this precision. */
    datetime: z.enum(['day', 'minute', 'second']).optional(),
    /** With `datetime`: `required` = the value must carry an offset (or Z) and be the same instant. */
    timezone: z.enum(['required', 'ignore']).optional(),
    /** Toolhound's spelling of `datetime: minute`. */
    normalize: z.enum(['iso8601_minute', 'iso8601_second', 'iso8601_date']).optional(),
    /** The argument may be left out. */
    optional: z.boolean().optional(),
  })
  .strict();
export type ArgRule = z.infer<typeof ArgRuleSchema>;

/** A call a case expects. */
export interface ExpectedCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Rules for this call only (parallel calls to one tool need their own equivalents); they extend the case's. */
  rules?: Record<string, ArgRule>;
}
