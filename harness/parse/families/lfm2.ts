/**
 * Liquid LFM2 / LFM2.5: `<|tool_call_start|>[f(a=1, b="x"), g()]<|tool_call_end|>` — a Pythonic call list between
 * the markers (LFM2 can also be prompted to write a JSON list there; both are read).
 *
 * Strict (vLLM lfm2 / llama.cpp): one list of keyword calls per block; values are Python literals, and JSON's
 * true/false/null are read too (the models write both); dotted names (`Calendar.create_event`) are names; the
 * closing marker may be cut off as a stop token only at the end of the text. Prose before the block is content.
 * Lenient: marker spacing/case, loose values (tuples, sets), positional arguments mapped onto a listed tool,
 * a bad call in the list skipped (and reported in `rejected`) while the others are kept.
 */
import { looseCalls, strictCall } from '../normalize.ts';
import { readPyCallList } from '../pycall.ts';
import { pyRepr } from '../pycall.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { located, onlyTrailer, readValueAt, rewound, skipWs } from '../util.ts';
import { pyCallToCall } from '../generic.ts';

const OPEN_STRICT = /<\|tool_call_start\|>/g;
const OPEN_LOOSE = /<\|\s*tool_call_start\s*\|>/gi;
const CLOSE_STRICT = /\s*<\|tool_call_end\|>/y;
const CLOSE_LOOSE = /\s*<\|\s*tool_call_end\s*\|>/iy;

export function parseLfm2(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const open = rewound(ctx.loose ? OPEN_LOOSE : OPEN_STRICT);
  const close = rewound(ctx.loose ? CLOSE_LOOSE : CLOSE_STRICT);
  let m: RegExpExecArray | null;
  while ((m = open.exec(text))) {
    res.attempted = true;
    const start = m.index;
    const p = skipWs(text, start + m[0].length);
    let calls: ParsedCall[] | null = null;
    let bodyEnd: number;
    if (/^\[\s*\{/.test(text.slice(p, p + 32))) {
      // a JSON list
      const r = readValueAt(text, p, ctx);
      if (!r.ok) {
        res.ok = false;
        res.truncated ||= r.truncated;
        if (!ctx.loose) break;
        continue;
      }
      if (Array.isArray(r.value) && r.value.length > 0) {
        if (ctx.loose) calls = looseCalls(r.value, ctx, { inMarker: true });
        else {
          const cs = r.value.map((v) => strictCall(v, { argsKey: 'arguments' }));
          calls = cs.every((c) => c !== null) ? (cs as ParsedCall[]) : null;
        }
      }
      bodyEnd = r.end;
    } else {
      const repairs = new Set<string>();
      const r = readPyCallList(text, p, 'loose', repairs, ctx.scan?.budget);
      if (!r.ok) {
        res.ok = false;
        res.truncated ||= r.truncated;
        if (!ctx.loose) break;
        continue;
      }
      if (!ctx.loose && (r.rejected.length > 0 || r.calls.some((c) => c.positional.length > 0) || r.calls.length === 0))
        calls = null;
      else if (!ctx.loose) calls = r.calls.map((c) => ({ name: c.name, arguments: c.kwargs }));
      else {
        const cs = r.calls.map((c) => pyCallToCall(c, ctx, true));
        calls = cs.every((c) => c !== null) && cs.length > 0 ? (cs as ParsedCall[]) : null;
        res.rejected = [...(res.rejected ?? []), ...r.rejected];
        for (const x of repairs) ctx.notes.add(x);
      }
      bodyEnd = r.end;
    }
    if (!calls) {
      res.ok = false;
      if (!ctx.loose) break;
      continue;
    }
    close.lastIndex = bodyEnd;
    const cm = close.exec(text);
    let end = bodyEnd;
    if (cm) end = bodyEnd + cm[0].length;
    else if (!onlyTrailer(text, bodyEnd)) {
      if (!ctx.loose) {
        res.ok = false;
        break;
      }
      ctx.notes.add('missing closing tag');
    }
    for (const c of calls) res.calls.push(located(c, start, end));
    res.spans.push([start, end]);
    open.lastIndex = end;
  }
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

export function renderLfm2(calls: ParsedCall[]): string {
  const one = (c: ParsedCall) =>
    `${c.name}(${Object.entries(c.arguments)
      .map(([k, v]) => `${k}=${pyRepr(v)}`)
      .join(', ')})`;
  return `<|tool_call_start|>[${calls.map(one).join(', ')}]<|tool_call_end|>`;
}
