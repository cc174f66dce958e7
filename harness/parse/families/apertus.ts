/**
 * Swiss AI Apertus: `<|tools_prefix|>[{"NAME": {…arguments…}}, …]<|tools_suffix|>` — each call is an object whose
 * single key is the function name.
 *
 * Strict (vLLM apertus / llama.cpp): a non-empty JSON list of one-key objects whose value is an object, between
 * the markers; `<|tools_suffix|>` may be cut off as a stop token.
 * Lenient: marker case/space, loose JSON, `{name, arguments}` objects, a single object.
 */
import { isPlainObject } from '../jsonish.ts';
import type { FamilyResult, ParseCtx, ParsedCall } from '../types.ts';
import { isToolName } from '../util.ts';
import { parseMarked, type MarkedSpec } from './marked.ts';

function nameAsKey(v: unknown, loose: boolean): ParsedCall | null {
  if (!isPlainObject(v)) return null;
  const keys = Object.keys(v);
  if (keys.length !== 1) return null;
  const name = keys[0]!;
  const args = v[name];
  if (!isToolName(name) || !isPlainObject(args)) return null;
  // `{"name": {...}}` is ambiguous: a tool called "name" — fine in the strict form, refused when loose
  // (looseCalls reads the `{name, arguments}` shape then)
  if (loose && (name === 'name' || name === 'function')) return null;
  return { name, arguments: args };
}

const SPEC: MarkedSpec = {
  open: ['<|tools_prefix|>'],
  openLoose: /<\|\s*tools_prefix\s*\|>/gi,
  close: '<|tools_suffix|>',
  closeLoose: /<\|\s*tools_suffix\s*\|>/iy,
  closeRequired: false,
  body: 'list',
  shape: { argsKey: 'arguments' },
  element: nameAsKey,
};

export function parseApertus(text: string, ctx: ParseCtx): FamilyResult {
  return parseMarked(text, ctx, SPEC);
}

export function renderApertus(calls: ParsedCall[]): string {
  return `<|tools_prefix|>${JSON.stringify(calls.map((c) => ({ [c.name]: c.arguments })))}<|tools_suffix|>`;
}
