/**
 * Llama 3.1 / 3.2 / 3.3 / 4 JSON tool calling: `<|python_tag|>{"name": "f", "parameters": {…}}` or the bare object,
 * several calls separated by `;` or newlines, optionally followed by `<|eom_id|>` / `<|eot_id|>`.
 *
 * Strict (vLLM llama3_json): JSON objects with `name` and `parameters` or `arguments`.
 *   - With the family named (`format: 'llama_json'`): every top-level `{…}` in the text is read as a call, prose
 *     around them allowed; one `{…}` that is not a call means no calls at all (vLLM returns the text as content).
 *   - Under `auto` (where bare JSON says nothing about the model): only when the whole output is the call(s),
 *     after an optional `<|python_tag|>`.
 * Lenient: prose before the tag / after the calls, the other argument aliases, loose JSON.
 */
import { isPlainObject } from '../jsonish.ts';
import { looseCalls, strictCall } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall, resultWith } from '../types.ts';
import { located, onlyTrailer, readValueAt, rewound, skipWs, stripEndTokens } from '../util.ts';

const TAG = '<|python_tag|>';
const TAG_LOOSE = /<\|\s*python_tag\s*\|>/gi;
const SHAPE = { argsKey: ['parameters', 'arguments'] } as const;

/** vLLM's reading: every top-level `{` starts a call; prose between them is content. */
function parseAnywhere(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  let p = 0;
  for (;;) {
    const i = text.indexOf('{', p);
    if (i < 0) break;
    const r = readValueAt(text, i, ctx);
    const c = r.ok ? strictCall(r.value, SHAPE) : null;
    if (!r.ok || !c) {
      if (!r.ok || /"name"\s*:/.test(text.slice(i, r.ok ? r.end : i + 200))) res.attempted = true;
      res.ok = false;
      res.truncated ||= !r.ok && r.truncated;
      return resultWith(res, { calls: [] });
    }
    res.attempted = true;
    const tagAt = text.slice(p, i).lastIndexOf(TAG);
    const start = tagAt >= 0 ? p + tagAt : i;
    res.calls.push(located(c, start, r.end));
    res.spans.push([start, r.end]);
    p = r.end;
  }
  return res;
}

export function parseLlamaJson(text: string, ctx: ParseCtx): FamilyResult {
  if (!ctx.loose && ctx.explicit) return parseAnywhere(text, ctx);
  const res = emptyResult();
  const body = stripEndTokens(text);
  let p = skipWs(body, 0);
  if (ctx.loose) {
    // The tag may follow some prose; without a tag the output must start with the object.
    const re = rewound(TAG_LOOSE);
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
    const tagLen = ctx.loose
      ? (/^<\|\s*python_tag\s*\|>/i.exec(body.slice(p, p + 24))?.[0].length ?? 0)
      : body.startsWith(TAG, p)
        ? TAG.length
        : 0;
    if (tagLen > 0) {
      hadTag = true;
      res.attempted = true;
      p = skipWs(body, p + tagLen);
    }
    const callStart = p;
    const r = readValueAt(text, p, ctx);
    if (!r.ok || r.end > body.length) {
      if (!r.ok && r.truncated) res.truncated = true;
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
      const c = strictCall(r.value, SHAPE);
      got = c ? [c] : null;
    }
    if (!got) {
      res.ok = false;
      break;
    }
    res.attempted = true;
    for (const c of got) calls.push(located(c, callStart, r.end));
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
  if (!ctx.loose && !res.ok) return resultWith(res, { calls: [] });
  res.calls = calls;
  if (calls.length > 0) res.spans.push([start, calls[calls.length - 1]!.end]);
  return res;
}

export function renderLlamaJson(calls: ParsedCall[]): string {
  return calls.map((c) => JSON.stringify({ name: c.name, parameters: c.arguments })).join('; ');
}
