/**
 * Llama 3.2 / Llama 4 pythonic calls: `[f(a=1, b='x'), g()]`, optionally inside
 * `<|python_start|>…<|python_end|>` (Llama 4), followed by end tokens.
 *
 * Strict: the whole output is one non-empty list of calls with keyword arguments only, each value a Python
 * literal (str, int, float, True/False/None, list, dict with string keys; unary minus allowed).
 * Lenient: the list anywhere in the text (prose around), tuples/sets, JSON literals, namespaced names,
 * whitespace before `(`. Bare `f(a=1)` without brackets is the generic lenient rescue (format 'python').
 */
import { readPyCallList, pyRepr, type PyCall } from '../pycall.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { located, onlyTrailer, overlaps, skipWs, stripEndTokens } from '../util.ts';
import { pyCallToCall } from '../generic.ts';

const START = '<|python_start|>';

export function parsePythonic(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  if (!ctx.loose) {
    const body = stripEndTokens(text);
    let p = skipWs(body, 0);
    if (body.startsWith(START, p)) p = skipWs(body, p + START.length);
    if (!/^\[\s*[A-Za-z_]\w*\s*\(/.test(body.slice(p, p + 200))) return res;
    res.attempted = true;
    const r = readPyCallList(body, p, 'strict', undefined, ctx.scan?.budget);
    if (!r.ok) {
      res.ok = false;
      res.truncated = r.truncated;
      return res;
    }
    if (!onlyTrailer(body, r.end)) {
      res.ok = false;
      return res;
    }
    res.calls = r.calls.map((c) => ({ name: c.name, arguments: c.kwargs, start: p, end: r.end }));
    // the span covers the `<|python_start|>` before the list, so it is not left in the content
    res.spans.push([0, r.end]);
    return res;
  }
  const re = /\[\s*[A-Za-z_][\w.]*\s*\(/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    if (overlaps(res.spans, m.index)) continue;
    res.attempted = true;
    const repairs = new Set<string>();
    const r = readPyCallList(text, m.index, 'loose', repairs, ctx.scan?.budget);
    if (r.ok) res.rejected = [...(res.rejected ?? []), ...r.rejected];
    if (!r.ok) {
      if (r.truncated) res.truncated = true;
      res.ok = false;
      continue;
    }
    const calls: ParsedCall[] = [];
    for (const c of r.calls) {
      const call = pyCallToCall(c as PyCall, ctx, true);
      if (!call) break;
      calls.push(call);
    }
    if (calls.length !== r.calls.length || calls.length === 0) {
      res.ok = false;
      continue;
    }
    for (const x of repairs) ctx.notes.add(x);
    const before = text.slice(0, m.index).replace(START, '').trim();
    if (before !== '' || !onlyTrailer(text, r.end)) ctx.notes.add('prose around call');
    for (const c of calls) res.calls.push(located(c, m.index, r.end));
    const opener = text.lastIndexOf(START, m.index);
    const from = opener >= 0 && text.slice(opener + START.length, m.index).trim() === '' ? opener : m.index;
    res.spans.push([from, r.end]);
    re.lastIndex = r.end;
  }
  return res;
}

export function renderPythonic(calls: ParsedCall[]): string {
  const one = (c: ParsedCall) =>
    `${c.name}(${Object.entries(c.arguments)
      .map(([k, v]) => `${k}=${pyRepr(v)}`)
      .join(', ')})`;
  return `[${calls.map(one).join(', ')}]`;
}
