/**
 * Microsoft Phi-4-mini. Two native spellings, both accepted by the strict tier:
 *   - `<|tool_call|>{"name": "f", "arguments": {…}}<|/tool_call|>` (the model's special tokens, as llama.cpp's
 *     template writes them; a list inside one block is accepted too);
 *   - `functools[{"name": "f", "arguments": {…}}]` (vLLM phi4_mini_json), where `parameters` may replace
 *     `arguments`, prose around it allowed. Only with the family named: under `format: 'auto'` this second spelling is firefunction's (the same wire form).
 * Strict requires `<|/tool_call|>` after each block (unlike Granite's unclosed `<|tool_call|>[…]`).
 * Lenient: marker case/space, a missing closing marker once the JSON is complete, loose JSON, alias keys.
 */
import type { FamilyResult, ParseCtx, ParsedCall } from '../types.ts';
import { emptyResult } from '../types.ts';
import { FUNCTOOLS_SPEC } from './firefunction.ts';
import { parseMarked, type MarkedSpec } from './marked.ts';

const TAGGED: MarkedSpec = {
  open: ['<|tool_call|>'],
  openLoose: /<\|\s*tool_call\s*\|>(?=[\s\S]*?<\|\s*\/\s*tool_call\s*\|>)/gi,
  close: '<|/tool_call|>',
  closeLoose: /<\|\s*\/\s*tool_call\s*\|>/iy,
  closeRequired: true,
  body: 'either',
  shape: { argsKey: ['arguments', 'parameters'] },
};

// vLLM phi4_mini_json finds `functools[…]` anywhere: prose may follow it (FireFunction's must end the output)
const FUNCTOOLS: MarkedSpec = {
  ...FUNCTOOLS_SPEC,
  nothingAfter: false,
  shape: { argsKey: ['arguments', 'parameters'] },
};

export function parsePhi4Mini(text: string, ctx: ParseCtx): FamilyResult {
  const tagged =
    text.includes('<|/tool_call|>') || (ctx.loose && /<\|\s*\/\s*tool_call\s*\|>/i.test(text))
      ? parseMarked(text, ctx, TAGGED)
      : emptyResult();
  if (tagged.calls.length > 0 || !tagged.ok || !ctx.explicit) return tagged;
  return parseMarked(text, ctx, FUNCTOOLS);
}

export function renderPhi4Mini(calls: ParsedCall[]): string {
  return calls
    .map((c) => `<|tool_call|>${JSON.stringify({ name: c.name, arguments: c.arguments })}<|/tool_call|>`)
    .join('');
}
