/**
 * Llama 3.1 / 3.2 JSON tool calling: `<|python_tag|>{"name": "f", "parameters": {…}}` or the bare object
 * (3.2), several calls separated by `;` or newlines, optionally followed by `<|eom_id|>` / `<|eot_id|>`.
 *
 * Strict: the whole output is the call(s) — optional `<|python_tag|>`, then JSON objects with exactly
 * `name` + `parameters` (the key the Llama templates ask for), separated by `;` and/or newlines.
 * Lenient: prose before the tag / after the calls, `arguments` and the other aliases, loose JSON.
 */
import { isPlainObject } from '../jsonish.ts';
import { looseCalls, strictCall } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { onlyTrailer, readValueAt, skipWs, stripEndTokens } from '../util.ts';

const TAG = '<|python_tag|>';
const TAG_LOOSE = /<\|\s*python_tag\s*\|>/gi;

export function parseLlamaJson(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const body = stripEndTokens(text);
  let p = skipWs(body, 0);
  if (ctx.loose) {
    // The tag may follow some prose; without a tag the output must start with the object.
    const re = new RegExp(TAG_LOOSE);
    const m = re.exec(body);
    if (m) {
      if (body.slice(0, m.index).trim() !== '') ctx.notes.add('prose around JSON');
      p = m.index;
    } else if (body[p] !== '{' && body[p] !== '[') return res;
  } else if (!body.startsWith(TAG, p) && body[p] !== '{') return res;

  const start = p;
  const calls: Array<ParsedCall & { start: number; end: number }> = [];
  let hadTag = false;
  for (;;) {
    const tagLen = ctx.loose ? (/^<\|\s*python_tag\s*\|>/i.exec(body.slice(p, p + 24))?.[0].length ?? 0) : body.startsWith(TAG, p) ? TAG.length : 0;
    if (tagLen > 0) {
      hadTag = true;
      res.attempted = true;
      p = skipWs(body, p + tagLen);
    }
    const callStart = p;
    const r = readValueAt(body, p, ctx);
    if (!r.ok) {
      if (r.truncated) res.truncated = true;
      res.ok = false;
      if (body.startsWith(TAG, start)) res.attempted = true;
      break;
    }
    let got: ParsedCall[] | null;
    // Without the tag, bare JSON is only this family's when it has Llama's own `parameters` key;
    // other bare call-shaped JSON is the generic rescue's (format 'json').
    if (ctx.loose && !hadTag && !(isPlainObject(r.value) && 'parameters' in r.value)) got = null;
    else if (ctx.loose) got = looseCalls(r.value, ctx, { inMarker: hadTag, argsKey: 'parameters' });
    else {
      const c = strictCall(r.value, { argsKey: 'parameters' });
      got = c ? [c] : null;
    }
    if (!got) {
      res.ok = false;
      break;
    }
    res.attempted = true;
    for (const c of got) calls.push({ ...c, start: callStart, end: r.end });
    p = r.end;
    const q = skipWs(body, p);
    if (q >= body.length) break;
    if (body[q] === ';') {
      p = skipWs(body, q + 1);
      if (p >= body.length) break;
      continue;
    }
    if (body.slice(p, q).includes('\n') && (body[q] === '{' || body.startsWith(TAG, q))) {
      p = q;
      continue;
    }
    if (ctx.loose) {
      if (!onlyTrailer(body, q)) ctx.notes.add('prose around JSON');
      break;
    }
    res.ok = false; // trailing text after the call
    break;
  }
  if (!ctx.loose && !res.ok) return { ...res, calls: [] };
  res.calls = calls;
  if (calls.length > 0) res.spans.push([start, calls[calls.length - 1]!.end]);
  return res;
}

export function renderLlamaJson(calls: ParsedCall[]): string {
  return calls.map((c) => JSON.stringify({ name: c.name, parameters: c.arguments })).join('; ');
}
