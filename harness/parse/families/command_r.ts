/**
 * Cohere Command-R / Command-R7B / Command-A.
 *   R7B, A:  `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f", "parameters": {…}}, …]<|END_ACTION|>`, with
 *            reasoning in `<|START_THINKING|>…<|END_THINKING|>` and text in `<|START_RESPONSE|>…<|END_RESPONSE|>`;
 *   R, R+:   `Action: ```json\n[{"tool_name": "f", "parameters": {…}}, …]\n```` (the "directly-answer" tool is a call too).
 *
 * Strict (vLLM cohere_command / llama.cpp): a JSON list of `{tool_name, parameters}` objects (`tool_call_id`
 * allowed) in either frame; `<|END_ACTION|>` may be cut off as a stop token.
 * Lenient: marker case/space, loose JSON, `name`/`arguments` aliases, a single object.
 */
import { isPlainObject } from '../jsonish.ts';
import { strictCall } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { parseMarked, type MarkedSpec } from './marked.ts';

const ID_OK = (v: unknown) => typeof v === 'string' || typeof v === 'number';
const SHAPE = { argsKey: 'parameters', nameKey: 'tool_name', extra: { tool_call_id: ID_OK } } as const;

function element(v: unknown, loose: boolean): ParsedCall | null {
  const c = strictCall(v, SHAPE);
  if (c || !loose || !isPlainObject(v)) return c;
  return null; // looseCalls handles the alias spellings
}

const ACTION: MarkedSpec = {
  open: ['<|START_ACTION|>'],
  openLoose: /<\|\s*START_ACTION\s*\|>/gi,
  close: '<|END_ACTION|>',
  closeLoose: /<\|\s*END_ACTION\s*\|>/iy,
  closeRequired: false,
  body: 'list',
  shape: SHAPE,
  argsKey: 'parameters',
  element,
};

const FENCED: MarkedSpec = {
  open: ['Action: ```json', 'Action:\n```json'],
  openLoose: /Action:\s*```(?:json)?/gi,
  close: '```',
  closeLoose: /```/y,
  closeRequired: true,
  body: 'list',
  shape: SHAPE,
  argsKey: 'parameters',
  element,
};

export function parseCommandR(text: string, ctx: ParseCtx): FamilyResult {
  const a =
    text.includes('START_ACTION') || (ctx.loose && /START_ACTION/i.test(text))
      ? parseMarked(text, ctx, ACTION)
      : emptyResult();
  if (a.calls.length > 0 || !a.ok) return a;
  return parseMarked(text, ctx, FENCED);
}

export function renderCommandR(calls: ParsedCall[]): string {
  const list = calls.map((c, i) => ({ tool_call_id: String(i), tool_name: c.name, parameters: c.arguments }));
  return `<|START_ACTION|>${JSON.stringify(list)}<|END_ACTION|>`;
}
