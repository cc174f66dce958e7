/**
 * Mistral: `[TOOL_CALLS][{"name": "f", "arguments": {…}, "id": "abc123XYZ"}, …]` (tokenizer < v11; the `id`
 * is optional and, when present, 9 alphanumeric characters) and the v11+ form
 * `[TOOL_CALLS]f[ARGS]{…}[TOOL_CALLS]g[ARGS]{…}` (v13+ may put `[CALL_ID]abc123XYZ` before `[ARGS]`).
 *
 * Strict: prose may precede the first `[TOOL_CALLS]`; after the calls only whitespace and end tokens.
 * Lenient: sloppy marker whitespace/case, a single object instead of a list, `f{…}` without `[ARGS]`,
 * alias keys, loose JSON, text after the calls.
 */
import { looseCalls, strictCall } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall, resultWith } from '../types.ts';
import { located, onlyTrailer, readValueAt, rewound, skipWs } from '../util.ts';
import { isPlainObject } from '../jsonish.ts';

const BOT = '[TOOL_CALLS]';
const BOT_LOOSE = /\[\s*TOOL_CALLS\s*\]/gi;
const ID_OK = (v: unknown) => typeof v === 'string' && /^[A-Za-z0-9]{9}$/.test(v);

export function parseMistral(text: string, ctx: ParseCtx): FamilyResult {
  return ctx.loose ? parseLoose(text, ctx) : parseStrict(text, ctx);
}

function parseStrict(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const idx = text.indexOf(BOT);
  if (idx < 0) return res;
  res.attempted = true;
  let p = idx + BOT.length;
  const q = skipWs(text, p);
  const fail = (truncated = false): FamilyResult => resultWith(res, { ok: false, truncated, calls: [] });
  if (text[q] === '[') {
    const r = readValueAt(text, q, ctx);
    if (!r.ok) return fail(r.truncated);
    if (!Array.isArray(r.value) || r.value.length === 0) return fail();
    for (const el of r.value) {
      const c = strictCall(el, { argsKey: 'arguments', extra: { id: ID_OK } });
      if (!c) return fail();
      res.calls.push(located(c, idx, r.end));
    }
    if (!onlyTrailer(text, r.end)) return fail();
    res.spans.push([idx, r.end]);
    return res;
  }
  // v11+: NAME[ARGS]{…}, repeated with [TOOL_CALLS]. `[ARGS]` (and `[CALL_ID]`) are special tokens: a server
  // decoding with skip_special_tokens drops them, leaving `NAME{…}`, which vLLM's parser reads too; calls may
  // then also be separated by `,` or whitespace.
  for (;;) {
    const nm = /[A-Za-z0-9_\-.]+/y;
    nm.lastIndex = p;
    const m = nm.exec(text);
    if (!m) return fail(p >= text.length);
    const name = m[0];
    p += name.length;
    const idm = /\[CALL_ID\][A-Za-z0-9]+/y;
    idm.lastIndex = p;
    const idMatch = idm.exec(text);
    if (idMatch) p += idMatch[0].length;
    if (text.startsWith('[ARGS]', p)) p += '[ARGS]'.length;
    else if (text[p] !== '{') return fail(p >= text.length || '[ARGS]'.startsWith(text.slice(p)));
    const r = readValueAt(text, p, ctx);
    if (!r.ok) return fail(r.truncated);
    if (!isPlainObject(r.value)) return fail();
    res.calls.push({ name, arguments: r.value, start: idx, end: r.end });
    p = r.end;
    if (onlyTrailer(text, p)) break;
    let n = skipWs(text, p);
    if (text.startsWith(BOT, n)) p = n + BOT.length;
    else {
      if (text[n] === ',') n = skipWs(text, n + 1);
      else if (n === p) return fail();
      if (!/^[A-Za-z0-9_\-.]+(?:\[CALL_ID\][A-Za-z0-9]+)?(?:\[ARGS\])?\{/.test(text.slice(n, n + 200))) return fail();
      p = n;
    }
  }
  res.spans.push([idx, p]);
  return res;
}

function parseLoose(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const re = rewound(BOT_LOOSE);
  let m: RegExpExecArray | null;
  let first = true;
  while ((m = re.exec(text))) {
    if (first && text.slice(0, m.index).trim() !== '') ctx.notes.add('prose before call');
    first = false;
    res.attempted = true;
    if (m[0] !== BOT) ctx.notes.add('sloppy markers');
    const start = m.index;
    let p = skipWs(text, m.index + m[0].length);
    let calls: ParsedCall[] | null = null;
    let end = p;
    if (text[p] === '[' || text[p] === '{') {
      const r = readValueAt(text, p, ctx);
      if (!r.ok) {
        if (r.truncated) res.truncated = true;
        res.ok = false;
        continue;
      }
      calls = looseCalls(r.value, ctx, { inMarker: true });
      if (calls && !Array.isArray(r.value)) ctx.notes.add('single object instead of list');
      end = r.end;
    } else {
      const nm = /([A-Za-z_][\w\-.]*)\s*(?:\[\s*CALL_ID\s*\]\s*[A-Za-z0-9]+\s*)?(\[\s*ARGS\s*\])?\s*/iy;
      nm.lastIndex = p;
      const mm = nm.exec(text);
      if (!mm) {
        res.ok = false;
        continue;
      }
      if (!mm[2]) ctx.notes.add('missing [ARGS] marker');
      p += mm[0].length;
      const r = readValueAt(text, p, ctx);
      if (!r.ok) {
        if (r.truncated) res.truncated = true;
        res.ok = false;
        continue;
      }
      if (isPlainObject(r.value)) calls = [{ name: mm[1]!, arguments: r.value }];
      else if (typeof r.value === 'string')
        calls = looseCalls({ name: mm[1]!, arguments: r.value }, ctx, { inMarker: true });
      end = r.end;
    }
    if (!calls) {
      res.ok = false;
      continue;
    }
    const next = skipWs(text, end);
    if (next < text.length && !onlyTrailer(text, next) && !/^\[\s*TOOL_CALLS\s*\]/i.test(text.slice(next, next + 20)))
      ctx.notes.add('text after call');
    for (const c of calls) res.calls.push(located(c, start, end));
    res.spans.push([start, end]);
    re.lastIndex = end;
  }
  return res;
}

export function renderMistral(calls: ParsedCall[]): string {
  return `${BOT}${JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })))}`;
}
