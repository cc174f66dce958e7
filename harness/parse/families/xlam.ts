/**
 * Salesforce xLAM: the whole answer is a JSON list `[{"name": "f", "arguments": {…}}, …]`, or that list in a
 * ```json code fence (xLAM-2 often fences it).
 *
 * Strict (vLLM xlam): a non-empty list of `{name, arguments}` (arguments an object or a JSON string) that is the
 * whole visible output, the content of the first JSON code fence, or the list ending the output after a
 * `[TOOL_CALLS]` marker or inside `<tool_call>…</tool_call>` (prose before it is content) — those two only with the
 * family named: under `auto` they are Mistral's and Granite 3.1's / Hermes' (lenient) forms.
 * Lenient (family named only; under `auto` bare JSON is the generic rescue's): loose JSON, alias keys, text after.
 */
import { looseCalls, strictCall } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall, resultWith } from '../types.ts';
import { located, onlyTrailer, readValueAt, skipWs, stripEndTokens } from '../util.ts';

const FENCE = /```(?:json)?[ \t]*\r?\n/g;
const WRAPPED = /\[TOOL_CALLS\]\s*(?=\[\s*\{)|(<tool_call>)\s*(?=\[\s*\{)/g;

function strictList(v: unknown): ParsedCall[] | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  const out: ParsedCall[] = [];
  for (const el of v) {
    const c = strictCall(el, { argsKey: 'arguments', stringArgs: true });
    if (!c) return null;
    out.push(c);
  }
  return out;
}

export function parseXlam(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  // a loosely written bare list says nothing about the model: under `auto` it is the generic rescue's
  if (ctx.loose && !ctx.explicit) return res;
  const body = stripEndTokens(text);
  const p = skipWs(body, 0);
  // 1. the whole output is the list
  if (body[p] === '[' && /^\[\s*\{/.test(body.slice(p, p + 64))) {
    res.attempted = true;
    const r = readValueAt(text, p, ctx);
    if (!r.ok) return resultWith(res, { ok: false, truncated: r.truncated });
    const calls = ctx.loose ? looseCalls(r.value, ctx, { inMarker: true }) : strictList(r.value);
    if (!calls || !Array.isArray(r.value)) return resultWith(res, { ok: false });
    if (!onlyTrailer(text, r.end)) {
      if (!ctx.loose) return resultWith(res, { ok: false });
      ctx.notes.add('text after call');
    }
    res.calls = calls.map((c) => located(c, p, r.end));
    res.spans.push([p, r.end]);
    return res;
  }
  // 2. a list after `[TOOL_CALLS]` or inside `<tool_call>…</tool_call>`, ending the output
  WRAPPED.lastIndex = 0;
  const w = ctx.explicit ? WRAPPED.exec(body) : null;
  if (w) {
    res.attempted = true;
    const q = w.index + w[0].length;
    const r = readValueAt(body, q, ctx);
    if (!r.ok) return resultWith(res, { ok: false, truncated: r.truncated });
    const calls = ctx.loose ? looseCalls(r.value, ctx, { inMarker: true }) : strictList(r.value);
    if (!calls) return resultWith(res, { ok: false });
    let end = r.end;
    if (w[1] !== undefined) {
      const close = /\s*<\/tool_call>/y;
      close.lastIndex = end;
      const cm = close.exec(body);
      if (cm) end += cm[0].length;
      else if (!ctx.loose) return resultWith(res, { ok: false, truncated: onlyTrailer(body, end) });
    }
    if (!onlyTrailer(body, end)) {
      if (!ctx.loose) return resultWith(res, { ok: false });
      ctx.notes.add('text after call');
    }
    res.calls = calls.map((c) => located(c, w.index, end));
    res.spans.push([w.index, end]);
    return res;
  }
  // 3. a fenced list
  FENCE.lastIndex = 0;
  const m = FENCE.exec(text);
  if (!m) return res;
  const q = skipWs(text, m.index + m[0].length);
  if (text[q] !== '[') return res;
  res.attempted = true;
  const r = readValueAt(text, q, ctx);
  if (!r.ok) return resultWith(res, { ok: false, truncated: r.truncated });
  const calls = ctx.loose ? looseCalls(r.value, ctx, { inMarker: true }) : strictList(r.value);
  if (!calls) return resultWith(res, { ok: false });
  const close = /\s*```/y;
  close.lastIndex = r.end;
  const cm = close.exec(text);
  if (!cm && !ctx.loose) return resultWith(res, { ok: false, truncated: r.end >= text.trimEnd().length });
  const end = cm ? r.end + cm[0].length : r.end;
  if (ctx.loose) ctx.notes.add('code fence');
  res.calls = calls.map((c) => located(c, m.index, end));
  res.spans.push([m.index, end]);
  return res;
}

export function renderXlam(calls: ParsedCall[]): string {
  return JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })));
}
