import { z } from 'zod';

/**
 * A string-keyed map from data, keeping every key. zod's `z.record` builds its result by assignment, so a key
 * named `__proto__` (valid JSON, and a valid sub-question or parameter name) is silently dropped — a valid row
 * would lose a hop. Here each value is validated with `value` and stored as an own property, whatever its key.
 */
export function ownRecord<V extends z.ZodType>(value: V) {
  return z
    .custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
      message: 'expected an object',
    })
    .transform((obj, ctx) => {
      const out: Record<string, z.output<V>> = {};
      let ok = true;
      for (const key of Object.keys(obj)) {
        const r = value.safeParse(obj[key]);
        if (!r.success) {
          ok = false;
          for (const issue of r.error.issues)
            ctx.addIssue({ code: 'custom', message: issue.message, path: [key, ...issue.path] });
          continue;
        }
        Object.defineProperty(out, key, { value: r.data, enumerable: true, writable: true, configurable: true });
      }
      return ok ? out : z.NEVER;
    });
}
