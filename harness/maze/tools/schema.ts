// Tiny JSON Schema builders so 70 tool definitions stay readable. Parameters reject unknown keys (invalid use is
// reported to the agent); outputs are closed objects too, so the linter notices any accidental extra field.

import type { JsonSchema } from './types.ts';

export const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
export const num = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'number', description, ...extra });
export const int = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', description, ...extra });
export const date = (description: string): JsonSchema => ({
  type: 'string',
  description: `${description} (YYYY-MM-DD)`,
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
});
export const arr = (items: JsonSchema, description: string): JsonSchema => ({ type: 'array', description, items });

export function obj(properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** `[{label, amount}]` line items, shared by invoices and hotel quotes. */
export const lineItems = (description: string): JsonSchema =>
  arr(obj({ label: str('What the line is for'), amount: num('Amount of the line') }), description);
