// XML-like call formats built from elements (`<invoke name=…><parameter name=…>v</parameter></invoke>`, GLM's
// blocks): reading one element and one block of them, shared by the families that use them.
import { setOwn } from './jsonish.ts';
import type { FamilyResult, ParseCtx, ParsedCall } from './types.ts';
import { located, skipWs, sticky } from './util.ts';
import { paramSchema } from './xmlvalue.ts';

/** One element of an XML-like call block read at a position: a call and where it ends, or where and how it broke. */
export type ElementRead = { ok: true; call: ParsedCall; end: number } | { ok: false; truncated: boolean; at?: number };

/** The markers of an `<invoke name=…><parameter name=…>v</parameter></invoke>` call format. */
export interface InvokeMarks {
  /** sticky: the close of the whole call block */
  blockClose: RegExp;
  /** sticky, captures the tool's name */
  invoke: RegExp;
  /** sticky */
  invokeClose: RegExp;
  /** sticky, captures the parameter's name (a family may capture more) */
  param: RegExp;
  /** global: where a parameter's value ends (its close tag; when lenient also the next element) */
  paramEnd: RegExp;
}

/**
 * Reads one `<invoke>` element at `pos`: its parameters, each value typed by `value` (given the raw text, the
 * parameter's match and its schema); a missing close tag is noted, and accepted by the lenient tier before the next
 * element or the block's close. `cutWithin`: a text shorter than this after `pos` may be a cut-off opener.
 */
export function readInvokeElement(
  text: string,
  pos: number,
  ctx: ParseCtx,
  mk: InvokeMarks,
  how: {
    cutWithin: number;
    closesParam: (tag: string) => boolean;
    value: (raw: string, param: RegExpExecArray, schema: unknown) => unknown;
  },
): ElementRead {
  const im = sticky(mk.invoke, text, pos);
  if (!im) return { ok: false, truncated: text.length - pos < how.cutWithin };
  const name = im[1]!.trim();
  const args: Record<string, unknown> = {};
  let p = pos + im[0].length;
  for (;;) {
    p = skipWs(text, p);
    if (p >= text.length) return { ok: false, truncated: true };
    const pm = sticky(mk.param, text, p);
    if (pm) {
      const vs = p + pm[0].length;
      mk.paramEnd.lastIndex = vs;
      const pe = mk.paramEnd.exec(text);
      if (!pe) return { ok: false, truncated: true };
      const closed = how.closesParam(pe[0]);
      if (!closed) ctx.notes.add('missing closing tag');
      const key = pm[1]!.trim();
      setOwn(args, key, how.value(text.slice(vs, pe.index), pm, paramSchema(ctx.tools, name, key)));
      p = closed ? pe.index + pe[0].length : pe.index;
      continue;
    }
    const cm = sticky(mk.invokeClose, text, p);
    if (cm) return { ok: true, call: { name, arguments: args }, end: p + cm[0].length };
    if (ctx.loose && (sticky(mk.invoke, text, p) || sticky(mk.blockClose, text, p))) {
      ctx.notes.add('missing closing tag');
      return { ok: true, call: { name, arguments: args }, end: p };
    }
    return { ok: false, truncated: false, at: p };
  }
}

/**
 * Reads the `<invoke>` elements of one call block (DeepSeek DSML, MiniMax) from `pos` and records the block in
 * `res`: every call spans the whole block; a broken block or one without an element gives no call (not its first
 * elements). `blockEnd(p, n)` is where the block ends when it ends at `p` after `n` elements, else null. Returns
 * where the caller's scan goes on, or null when it stops (a strict failure, or the end of the text).
 */
export function readInvokeBlock(
  text: string,
  start: number,
  pos: number,
  res: FamilyResult,
  ctx: ParseCtx,
  readElement: (p: number) => ElementRead,
  blockEnd: (p: number, n: number) => number | null,
): number | null {
  let p = pos;
  let n = 0;
  let ok = true;
  for (;;) {
    p = skipWs(text, p);
    if (p >= text.length) break; // the block's close may be cut off
    const end = blockEnd(p, n);
    if (end !== null) {
      p = end;
      break;
    }
    const el = readElement(p);
    if (!el.ok) {
      ok = false;
      res.truncated ||= el.truncated;
      p = el.truncated ? text.length : (el.at ?? p);
      break;
    }
    res.calls.push(located(el.call, start, el.end));
    n++;
    p = el.end;
  }
  if (!ok || n === 0) {
    res.calls.length -= n; // a broken block gives no call, not its first invokes
    res.ok = false;
    if (n === 0 && p >= text.length) res.truncated = true;
    // the lenient tier resumes where the block broke, not inside it again
    return !ctx.loose || p >= text.length ? null : p;
  }
  for (let i = res.calls.length - n; i < res.calls.length; i++) res.calls[i]!.end = p;
  res.spans.push([start, p]);
  return p;
}
