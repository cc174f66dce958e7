import type { z } from 'zod';
import { firstZodIssue } from '../../core/errors.ts';
import type { CaseProblem } from './contract.ts';

/**
 * Reading a case's meta and trace leniently, for a case view: a field of the wrong kind reads as empty, never as a
 * throw (the meta passed its schema; a trace is whatever the suite wrote, of any version). Pure.
 */

export type Obj = Record<string, unknown>;

/** An object, or `{}` for anything else. */
export const obj = (x: unknown): Obj => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Obj) : {});

/** An array, or `[]` for anything else. */
export const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);

/** A value as text: strings as they are, everything else as JSON; null and undefined as null. */
export function text(x: unknown): string | null {
  if (x === null || x === undefined) return null;
  return typeof x === 'string' ? x : JSON.stringify(x);
}

/** A number as a table cell: integers as they are, others to 3 decimals, a missing one as `—`. */
export const num = (x: unknown): string =>
  typeof x === 'number'
    ? Number.isInteger(x)
      ? String(x)
      : x.toFixed(3)
    : x === null || x === undefined
      ? '—'
      : String(x);

/** A string as it is, anything else as indented JSON. */
export const pretty = (x: unknown): string => (typeof x === 'string' ? x : JSON.stringify(x ?? null, null, 2));

/** Calls as `name({...})`, one per line: how a probe or BFCL prediction reads in the ledger. */
export function callsText(calls: unknown): string {
  return arr(calls)
    .map((c) => `${text(obj(c).name) ?? '?'}(${JSON.stringify(obj(c).arguments ?? {})})`)
    .join('\n');
}

/** `group=value` tags of the pairs whose value is there. */
export function tagsOf(pairs: Array<[string, unknown]>): string[] {
  return pairs.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => `${k}=${text(v)}`);
}

/** Parse `value` with `schema`; on failure note the field (under `prefix`) in `problems` and give null. */
export function readField<T>(schema: z.ZodType<T>, value: unknown, prefix: string, problems: CaseProblem[]): T | null {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const { field, message } = firstZodIssue(r.error);
  problems.push({ field: field ? `${prefix}${field.startsWith('[') ? '' : '.'}${field}` : prefix, message });
  return null;
}
