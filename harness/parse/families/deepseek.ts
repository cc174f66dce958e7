/**
 * DeepSeek V3 / V3.1 (the markers use full-width ｜ U+FF5C and ▁ U+2581):
 *   V3.1: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
 *   V3:   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{json}\n```<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
 *
 * Strict: exactly those markers, a JSON object of arguments, both end markers; whitespace between calls
 * tolerated; prose before the block allowed.
 * Lenient: ASCII `|` / `_` / space variants of the markers, a missing call-end or calls-end marker when the
 * JSON is complete, a missing code fence in the V3 form, loose JSON, alias/stringified arguments.
 */
import { namedArgumentCalls } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall, resultWith } from '../types.ts';
import { located, onlyTrailer, readValueAt, skipWs } from '../util.ts';

export const DS = {
  callsBegin: '<｜tool▁calls▁begin｜>',
  callBegin: '<｜tool▁call▁begin｜>',
  sep: '<｜tool▁sep｜>',
  callEnd: '<｜tool▁call▁end｜>',
  callsEnd: '<｜tool▁calls▁end｜>',
};

function marker(words: string): RegExp {
  // <｜tool▁calls▁begin｜> with ASCII look-alikes: | for ｜, _ / space / nothing for ▁
  const body = words.split(' ').join('[▁_ ]?');
  return new RegExp(`<\\s*[｜|]\\s*${body}\\s*[｜|]\\s*>`, 'iy');
}

interface Marks {
  callsBegin: RegExp;
  callBegin: RegExp;
  sep: RegExp;
  callEnd: RegExp;
  callsEnd: RegExp;
}
const esc = (s: string) => new RegExp(s.replace(/[|[\]{}()*+?.\\^$]/g, '\\$&'), 'y');
const STRICT: Marks = {
  callsBegin: esc(DS.callsBegin),
  callBegin: esc(DS.callBegin),
  sep: esc(DS.sep),
  callEnd: esc(DS.callEnd),
  callsEnd: esc(DS.callsEnd),
};
const LOOSE: Marks = {
  callsBegin: marker('tool calls begin'),
  callBegin: marker('tool call begin'),
  sep: marker('tool sep'),
  callEnd: marker('tool call end'),
  callsEnd: marker('tool calls end'),
};

function at(re: RegExp, text: string, pos: number): number {
  re.lastIndex = pos;
  const m = re.exec(text);
  return m ? m[0].length : -1;
}

/** First position >= from where `re` matches (re is sticky; scan for the `<`). */
function find(re: RegExp, text: string, from: number): { index: number; len: number } | null {
  for (let i = text.indexOf('<', from); i >= 0; i = text.indexOf('<', i + 1)) {
    const len = at(re, text, i);
    if (len >= 0) return { index: i, len };
  }
  return null;
}

export function parseDeepseek(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const mk = ctx.loose ? LOOSE : STRICT;
  const begin = find(mk.callsBegin, text, 0);
  const firstCall = find(mk.callBegin, text, 0);
  if (!begin && !firstCall) return res;
  res.attempted = true;
  if (!begin) {
    if (!ctx.loose) return resultWith(res, { ok: false });
    ctx.notes.add('missing calls-begin marker');
  }
  const start = begin ? begin.index : firstCall!.index;
  let p = begin ? begin.index + begin.len : firstCall!.index;
  const fail = (truncated: boolean): FamilyResult =>
    resultWith(res, { ok: false, truncated, calls: ctx.loose ? res.calls : [] });
  for (;;) {
    p = skipWs(text, p);
    if (p >= text.length) {
      if (!ctx.loose || res.calls.length === 0) return fail(true);
      ctx.notes.add('missing closing tag');
      break;
    }
    const endLen = at(mk.callsEnd, text, p);
    if (endLen >= 0) {
      if (res.calls.length === 0) return fail(false);
      p += endLen;
      break;
    }
    const cbLen = at(mk.callBegin, text, p);
    if (cbLen < 0) {
      if (ctx.loose && res.calls.length > 0) {
        ctx.notes.add('missing closing tag');
        break;
      }
      return fail(false);
    }
    const callStart = p;
    p += cbLen;
    const sep = find(mk.sep, text, p);
    if (!sep) return fail(!find(mk.callEnd, text, p));
    const head = text.slice(p, sep.index);
    p = sep.index + sep.len;
    let name: string;
    let v3 = false;
    const v3m = /^([^\n<]+)\n\s*```(?:json)?[ \t]*\n/.exec(text.slice(p, p + 300));
    if (head.trim() === 'function' && v3m) {
      name = v3m[1]!.trim();
      p += v3m[0].length;
      v3 = true;
    } else if (head.trim() === 'function' && ctx.loose && /^[^\n<{]+\n\s*\{/.test(text.slice(p, p + 300))) {
      const nl = text.indexOf('\n', p);
      name = text.slice(p, nl).trim();
      p = nl + 1;
      ctx.notes.add('missing code fence');
    } else {
      name = ctx.loose ? head.trim() : head;
    }
    if (name === '' || /[\n<>]/.test(name)) return fail(false);
    const r = readValueAt(text, p, ctx);
    if (!r.ok) return fail(r.truncated);
    const calls = namedArgumentCalls(name, r.value, ctx);
    if (!calls) return fail(false);
    p = r.end;
    if (v3) {
      const fence = /\s*```/y;
      fence.lastIndex = p;
      const fm = fence.exec(text);
      if (fm) p += fm[0].length;
      else if (!ctx.loose) return fail(p >= text.length);
      else ctx.notes.add('missing code fence');
    }
    p = skipWs(text, p);
    const ceLen = at(mk.callEnd, text, p);
    if (ceLen >= 0) p += ceLen;
    else if (!ctx.loose) return fail(p >= text.length);
    else ctx.notes.add('missing closing tag');
    for (const c of calls) res.calls.push(located(c, callStart, p));
    if (ctx.loose && onlyTrailer(text, p)) {
      if (at(mk.callsEnd, text, skipWs(text, p)) < 0) ctx.notes.add('missing closing tag');
      break;
    }
  }
  res.spans.push([start, p]);
  return res;
}

export function renderDeepseek(calls: ParsedCall[]): string {
  const body = calls
    .map((c) => `${DS.callBegin}${c.name}${DS.sep}${JSON.stringify(c.arguments)}${DS.callEnd}`)
    .join('');
  return `${DS.callsBegin}${body}${DS.callsEnd}`;
}
