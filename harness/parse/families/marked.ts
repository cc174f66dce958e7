/**
 * The common shape of many families: JSON call(s) between fixed markers, e.g. `<TOOLCALL>[…]</TOOLCALL>`,
 * `<tool_calls>[…]</tool_calls>`, `<|action_start|><|plugin|>{…}<|action_end|>`. One engine, configured per
 * family (MarkedSpec), so every such family gets the same strict/lenient behaviour:
 *
 * Strict: the exact markers; the body is exactly JSON of the documented shape (StrictShape); the closing marker
 * when the framework requires it; prose before (and, unless `nothingAfter`, after) the blocks.
 * Lenient: marker case/whitespace, loose JSON, alias keys and wrappers (looseCalls), a missing closing marker
 * once the JSON is complete, a single object where a list is expected.
 */
import { isPlainObject } from '../jsonish.ts';
import { looseCalls, strictCall, type StrictShape } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { flagged, located, onlyTrailer, readValueAt, skipWs } from '../util.ts';

export interface MarkedSpec {
  /** opening marker(s), as the model writes them */
  open: readonly string[];
  /** the same, sloppy (global regex) */
  openLoose: RegExp;
  /** closing marker, or null when the JSON itself ends the block */
  close: string | null;
  /** the same, sloppy (sticky regex) */
  closeLoose?: RegExp;
  /** strict: the closing marker must be there (else the end of text or the JSON's end is enough) */
  closeRequired: boolean;
  /** what the block holds */
  body: 'list' | 'object' | 'either';
  shape: StrictShape;
  /** strict: only whitespace and end tokens may follow the last block */
  nothingAfter?: boolean;
  /** the family's own arguments key (so the lenient tier does not call it an alias) */
  argsKey?: 'arguments' | 'parameters';
  /** an element → call that is not `{name, arguments}` (e.g. Apertus `{"NAME": {…}}`); strict and loose */
  element?: (v: unknown, loose: boolean) => ParsedCall | null;
}

function strictElements(v: unknown, spec: MarkedSpec): ParsedCall[] | null {
  const els = Array.isArray(v) ? v : [v];
  if (Array.isArray(v) ? spec.body === 'object' || v.length === 0 : spec.body === 'list') return null;
  const out: ParsedCall[] = [];
  for (const el of els) {
    const c = spec.element ? spec.element(el, false) : strictCall(el, spec.shape);
    if (!c) return null;
    out.push(c);
  }
  return out;
}

function looseElements(v: unknown, spec: MarkedSpec, ctx: ParseCtx): ParsedCall[] | null {
  if (spec.element) {
    const els = Array.isArray(v) ? v : [v];
    const out: ParsedCall[] = [];
    for (const el of els) {
      const c = spec.element(el, true) ?? looseCalls(el, ctx, { inMarker: true, argsKey: spec.argsKey })?.[0] ?? null;
      if (!c) return null;
      out.push(c);
    }
    if (out.length === 0) return null;
    return out;
  }
  const calls = looseCalls(v, ctx, { inMarker: true, argsKey: spec.argsKey });
  if (calls && spec.body === 'list' && !Array.isArray(v)) ctx.notes.add('single object instead of list');
  return calls;
}

export function parseMarked(text: string, ctx: ParseCtx, spec: MarkedSpec): FamilyResult {
  const res = emptyResult();
  const openRe = ctx.loose ? flagged(spec.openLoose, 'g') : null;
  let from = 0;
  let lastEnd = -1;
  for (;;) {
    let start: number;
    let markLen: number;
    if (openRe) {
      openRe.lastIndex = from;
      const m = openRe.exec(text);
      if (!m) break;
      start = m.index;
      markLen = m[0].length;
      if (!spec.open.includes(m[0])) ctx.notes.add('sloppy markers');
    } else {
      start = -1;
      markLen = 0;
      for (const o of spec.open) {
        const i = text.indexOf(o, from);
        if (i >= 0 && (start < 0 || i < start)) {
          start = i;
          markLen = o.length;
        }
      }
      if (start < 0) break;
    }
    res.attempted = true;
    const p = skipWs(text, start + markLen);
    const r = readValueAt(text, p, ctx);
    if (!r.ok) {
      res.ok = false;
      res.truncated ||= r.truncated;
      from = start + Math.max(1, markLen);
      continue;
    }
    const calls = ctx.loose ? looseElements(r.value, spec, ctx) : strictElements(r.value, spec);
    if (!calls) {
      res.ok = false;
      from = start + Math.max(1, markLen);
      continue;
    }
    let end = r.end;
    if (spec.close !== null) {
      const q = skipWs(text, r.end);
      if (text.startsWith(spec.close, q)) end = q + spec.close.length;
      else {
        const cl = spec.closeLoose ? flagged(spec.closeLoose, 'y') : null;
        if (cl) cl.lastIndex = q;
        const cm = ctx.loose && cl ? cl.exec(text) : null;
        if (cm) {
          ctx.notes.add('sloppy markers');
          end = q + cm[0].length;
        } else if (spec.closeRequired && !ctx.loose) {
          res.ok = false;
          res.truncated ||= q >= text.length || spec.close.startsWith(text.slice(q));
          from = start + Math.max(1, markLen);
          continue;
        } else if (ctx.loose && spec.closeRequired) ctx.notes.add('missing closing tag');
      }
    }
    for (const c of calls) res.calls.push(located(c, start, end));
    res.spans.push([start, end]);
    lastEnd = end;
    from = end;
  }
  if (!ctx.loose && res.ok && spec.nothingAfter && lastEnd >= 0 && !onlyTrailer(text, lastEnd)) res.ok = false;
  if (ctx.loose && lastEnd >= 0 && !onlyTrailer(text, lastEnd) && spec.nothingAfter) ctx.notes.add('text after call');
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

/** Calls as `{name, arguments}` objects (the JSON most marked families write). */
export function jsonCalls(
  calls: ParsedCall[],
  argsKey: 'arguments' | 'parameters' = 'arguments',
): Array<Record<string, unknown>> {
  return calls.map((c) => ({ name: c.name, [argsKey]: c.arguments }));
}

export { isPlainObject };
