/**
 * InternLM2/2.5: `<|action_start|><|plugin|>\n{"name": "f", "parameters": {…}}<|action_end|>`, one call per block.
 *
 * Strict (vLLM internlm2): the object holds `name` and `parameters` (or `arguments`); the `<|action_end|>` marker
 * may be cut off as a stop token; text before the first block is content.
 * Lenient: marker case/space, loose JSON, alias keys.
 */
import type { FamilyResult, ParseCtx, ParsedCall } from '../types.ts';
import { parseMarked, type MarkedSpec } from './marked.ts';

const SPEC: MarkedSpec = {
  open: ['<|action_start|><|plugin|>'],
  openLoose: /<\|\s*action_start\s*\|>\s*<\|\s*plugin\s*\|>/gi,
  close: '<|action_end|>',
  closeLoose: /<\|\s*action_end\s*\|>/iy,
  closeRequired: false,
  body: 'object',
  shape: { argsKey: ['parameters', 'arguments'] },
  argsKey: 'parameters',
};

export function parseInternlm(text: string, ctx: ParseCtx): FamilyResult {
  return parseMarked(text, ctx, SPEC);
}

export function renderInternlm(calls: ParsedCall[]): string {
  return calls
    .map(
      (c) => `<|action_start|><|plugin|>\n${JSON.stringify({ name: c.name, parameters: c.arguments })}<|action_end|>`,
    )
    .join('\n');
}
