/**
 * Fireworks FireFunction v2 (Llama-3 based): ` functools[{"name": "f", "arguments": {…}}, …]` — no closing marker.
 *
 * Strict (llama.cpp firefunction_v2): `functools` then one JSON list of `{name, arguments}`; prose before it is
 * content; after the list only whitespace and end tokens.
 * Lenient: `functools` spacing/case, loose JSON, alias keys, a single object, text after the list.
 * The same wire form is vLLM's phi4_mini_json format; with `format: 'auto'` it is reported as firefunction.
 */
import type { FamilyResult, ParseCtx, ParsedCall } from '../types.ts';
import { jsonCalls, parseMarked, type MarkedSpec } from './marked.ts';

export const FUNCTOOLS_SPEC: MarkedSpec = {
  open: ['functools'],
  openLoose: /\bfunctools\s*(?=\[|\{)/gi,
  close: null,
  closeRequired: false,
  body: 'list',
  shape: { argsKey: 'arguments' },
  nothingAfter: true,
};

export function parseFirefunction(text: string, ctx: ParseCtx): FamilyResult {
  return parseMarked(text, ctx, FUNCTOOLS_SPEC);
}

export function renderFirefunction(calls: ParsedCall[]): string {
  return ` functools${JSON.stringify(jsonCalls(calls))}`;
}
