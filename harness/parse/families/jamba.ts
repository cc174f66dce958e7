/**
 * AI21 Jamba (1.5/1.6/1.7): `<tool_calls>[{"name": "f", "arguments": {…}}, …]</tool_calls>` (also ServiceNow Apriel 1.5).
 *
 * Strict (vLLM jamba): a JSON list of `{name, arguments}` between the markers, the closing marker required; prose
 * before the block is content.
 * Lenient: marker case/space, a missing `</tool_calls>`, loose JSON, alias keys, a single object.
 */
import type { FamilyResult, ParseCtx, ParsedCall } from '../types.ts';
import { jsonCalls, parseMarked, type MarkedSpec } from './marked.ts';

const SPEC: MarkedSpec = {
  open: ['<tool_calls>'],
  openLoose: /<\s*tool_calls\s*>/gi,
  close: '</tool_calls>',
  closeLoose: /<\s*\/\s*tool_calls\s*>/iy,
  closeRequired: true,
  body: 'list',
  shape: { argsKey: 'arguments' },
};

export function parseJamba(text: string, ctx: ParseCtx): FamilyResult {
  return parseMarked(text, ctx, SPEC);
}

export function renderJamba(calls: ParsedCall[]): string {
  return `<tool_calls>${JSON.stringify(jsonCalls(calls))}</tool_calls>`;
}
