/**
 * IBM Granite 3.x: `<|tool_call|>[{"name": "f", "arguments": {…}}, …]`.
 *
 * Strict: prose may precede the marker; then one non-empty JSON list of `{name, arguments}` objects and only
 * whitespace / end tokens after it.
 * Lenient: sloppy marker, a single object instead of a list, several markers, alias keys, loose JSON,
 * text after the list.
 */
import { looseCalls, strictCall } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { onlyTrailer, readValueAt, skipWs } from '../util.ts';

const MARK = '<|tool_call|>';
const MARK_LOOSE = /<\|\s*tool_call\s*\|>/gi;

export function parseGranite(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  if (!ctx.loose) {
    const idx = text.indexOf(MARK);
    if (idx < 0) return res;
    res.attempted = true;
    const fail = (truncated = false): FamilyResult => ({ ...res, ok: false, truncated, calls: [] });
    const r = readValueAt(text, idx + MARK.length, ctx);
    if (!r.ok) return fail(r.truncated);
    if (!Array.isArray(r.value) || r.value.length === 0) return fail();
    for (const el of r.value) {
      const c = strictCall(el, { argsKey: 'arguments' });
      if (!c) return fail();
      res.calls.push({ ...c, start: idx, end: r.end });
    }
    if (!onlyTrailer(text, r.end)) return fail();
    res.spans.push([idx, r.end]);
    return res;
  }
  const re = new RegExp(MARK_LOOSE);
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    res.attempted = true;
    if (m[0] !== MARK) ctx.notes.add('sloppy markers');
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
    for (const c of calls) res.calls.push({ ...c, start: m.index, end: r.end });
    res.spans.push([m.index, r.end]);
    re.lastIndex = r.end;
  }
  return res;
}

export function renderGranite(calls: ParsedCall[]): string {
  return `${MARK}${JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })))}`;
}
