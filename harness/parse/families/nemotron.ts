/**
 * NVIDIA Nemotron (Llama-3.1/3.3-Nemotron, Nemotron-Nano-v2): `<TOOLCALL>[{"name": "f", "arguments": {…}}, …]</TOOLCALL>`.
 * (Nemotron-3 Nano writes the Qwen3 XML format instead: family qwen3_xml.)
 *
 * Strict (vLLM nemotron_json / llama.cpp): a JSON list of `{name, arguments}` between the markers, or a single such
 * object (vLLM wraps it in a list), the closing marker required; the arguments may also be a JSON string. Prose may
 * surround the block.
 * Lenient: marker case/space, a missing `</TOOLCALL>`, loose JSON, alias keys.
 */
import type { FamilyResult, ParseCtx, ParsedCall } from '../types.ts';
import { jsonCalls, parseMarked, type MarkedSpec } from './marked.ts';

const SPEC: MarkedSpec = {
  open: ['<TOOLCALL>'],
  openLoose: /<\s*TOOLCALL\s*>/gi,
  close: '</TOOLCALL>',
  closeLoose: /<\s*\/\s*TOOLCALL\s*>/iy,
  closeRequired: true,
  body: 'either',
  shape: { argsKey: 'arguments', stringArgs: true },
};

export function parseNemotron(text: string, ctx: ParseCtx): FamilyResult {
  return parseMarked(text, ctx, SPEC);
}

export function renderNemotron(calls: ParsedCall[]): string {
  return `<TOOLCALL>${JSON.stringify(jsonCalls(calls))}</TOOLCALL>`;
}
