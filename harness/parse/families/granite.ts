/**
 * IBM Granite.
 *   3.x:  `<|tool_call|>[{"name": "f", "arguments": {…}}, …]` (3.1 may write `<tool_call>` instead of the special token)
 *   4.x:  Hermes-style blocks `<tool_call>{"name": "f", "arguments": …}</tool_call>`, where the arguments may be a
 *         JSON string (vLLM's granite4 parser decodes it).
 *
 * Strict (vLLM granite / granite4): prose may precede the marker; then one non-empty JSON list of `{name, arguments}`
 * objects and only whitespace / end tokens after it; or Granite 4 blocks (a block with object arguments is
 * Hermes' format too, and `auto` reports it as hermes).
 * Lenient: sloppy marker, a single object instead of a list, several markers, alias keys, loose JSON,
 * text after the list.
 */
import { looseCalls, strictCall } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall, resultWith } from '../types.ts';
import { located, onlyTrailer, readValueAt, rewound, skipWs } from '../util.ts';
import { parseMarked, type MarkedSpec } from './marked.ts';

const MARKS = ['<|tool_call|>', '<tool_call>'];
const MARK_LOOSE = /<\|\s*tool_call\s*\|>/gi;

/** Granite 4: Hermes blocks whose arguments may be stringified JSON. */
const GRANITE4: MarkedSpec = {
  open: ['<tool_call>'],
  openLoose: /<\s*tool_call\s*>/gi,
  close: '</tool_call>',
  closeLoose: /<\s*\/\s*tool_call\s*>/iy,
  closeRequired: true,
  body: 'object',
  shape: { argsKey: 'arguments', stringArgs: true },
};

function parseList(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  // the first marker followed by a list: `<|tool_call|>[` or Granite 3.1's `<tool_call>[`
  let idx = -1;
  let len = 0;
  for (const mk of MARKS) {
    let from = 0;
    for (;;) {
      const i = text.indexOf(mk, from);
      if (i < 0) break;
      if (mk === '<|tool_call|>' || text[skipWs(text, i + mk.length)] === '[') {
        if (idx < 0 || i < idx) {
          idx = i;
          len = mk.length;
        }
        break;
      }
      from = i + 1;
    }
  }
  if (idx < 0) return res;
  res.attempted = true;
  const fail = (truncated = false): FamilyResult => resultWith(res, { ok: false, truncated, calls: [] });
  const r = readValueAt(text, idx + len, ctx);
  if (!r.ok) return fail(r.truncated);
  if (!Array.isArray(r.value) || r.value.length === 0) return fail();
  for (const el of r.value) {
    const c = strictCall(el, { argsKey: 'arguments' });
    if (!c) return fail();
    res.calls.push(located(c, idx, r.end));
  }
  if (!onlyTrailer(text, r.end)) return fail();
  res.spans.push([idx, r.end]);
  return res;
}

export function parseGranite(text: string, ctx: ParseCtx): FamilyResult {
  if (!ctx.loose) {
    const list = parseList(text, ctx);
    if (list.attempted) return list;
    // Granite 4 blocks (under `auto`, hermes comes first and keeps those with object arguments)
    return parseMarked(text, ctx, GRANITE4);
  }
  const res = emptyResult();
  const re = rewound(MARK_LOOSE);
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    res.attempted = true;
    if (m[0] !== '<|tool_call|>') ctx.notes.add('sloppy markers');
    const p = skipWs(text, m.index + m[0].length);
    const r = readValueAt(text, p, ctx);
    if (!r.ok) {
      if (r.truncated) res.truncated = true;
      res.ok = false;
      continue;
    }
    const calls = looseCalls(r.value, ctx, { inMarker: true });
    if (!calls) {
      res.ok = false;
      continue;
    }
    if (!Array.isArray(r.value)) ctx.notes.add('single object instead of list');
    const next = skipWs(text, r.end);
    if (next < text.length && !onlyTrailer(text, next) && !/^<\|\s*tool_call\s*\|>/i.test(text.slice(next, next + 20)))
      ctx.notes.add('text after call');
    for (const c of calls) res.calls.push(located(c, m.index, r.end));
    res.spans.push([m.index, r.end]);
    re.lastIndex = r.end;
  }
  return res;
}

export function renderGranite(calls: ParsedCall[]): string {
  return `<|tool_call|>${JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })))}`;
}
