/**
 * MiniMax-M2 (and M2.1/M2.5):
 *   <minimax:tool_call>
 *   <invoke name="NAME">
 *   <parameter name="KEY">value</parameter>
 *   </invoke>
 *   </minimax:tool_call>
 * several `<invoke>` per block; strings are written as is, other values as JSON (the template's `tojson`).
 *
 * Values are typed by the tool schema (xmlvalue.ts schemaTyped); without a schema they stay text (vLLM minimax_m2).
 * Strict: that markup; the block's close may be cut off at the end of the text; prose before is content.
 * Lenient: spacing/case, single quotes, a missing `</parameter>`/`</invoke>` before the next tag, `<invoke>`
 * blocks without the wrapper.
 */
import { setOwn } from '../jsonish.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { readInvokeBlock, skipWs, sticky, type ElementRead } from '../util.ts';
import { paramSchema, schemaTyped } from '../xmlvalue.ts';

interface Marks {
  block: RegExp; // global: wrapper opener (loose also a bare <invoke)
  blockClose: RegExp; // sticky
  invoke: RegExp; // sticky, name
  invokeClose: RegExp; // sticky
  param: RegExp; // sticky, name
  paramEnd: RegExp; // global
}

const STRICT: Marks = {
  block: /<minimax:tool_call>/g,
  blockClose: /<\/minimax:tool_call>/y,
  invoke: /<invoke name="([^"\n<>]+)">/y,
  invokeClose: /<\/invoke>/y,
  param: /<parameter name="([^"\n<>]+)">/y,
  paramEnd: /<\/parameter>/g,
};
const LOOSE: Marks = {
  block: /<\s*minimax\s*:\s*tool_call\s*>|<\s*invoke\s+name\s*=/gi,
  blockClose: /<\s*\/\s*minimax\s*:\s*tool_call\s*>/iy,
  invoke: /<\s*invoke\s+name\s*=\s*["']([^"'\n<>]+)["']\s*>/iy,
  invokeClose: /<\s*\/\s*invoke\s*>/iy,
  param: /<\s*parameter\s+name\s*=\s*["']([^"'\n<>]+)["']\s*>/iy,
  paramEnd: /<\s*\/\s*parameter\s*>|<\s*parameter\s+name\s*=|<\s*\/\s*invoke\s*>/gi,
};

function parseInvoke(text: string, pos: number, ctx: ParseCtx, mk: Marks): ElementRead {
  const im = sticky(mk.invoke, text, pos);
  if (!im) return { ok: false, truncated: text.length - pos < 30 };
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
      const closed = /^<\s*\/\s*parameter/i.test(pe[0]);
      if (!closed) ctx.notes.add('missing closing tag');
      const key = pm[1]!.trim();
      setOwn(args, key, schemaTyped(text.slice(vs, pe.index), paramSchema(ctx.tools, name, key)));
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

export function parseMinimax(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const mk = ctx.loose ? LOOSE : STRICT;
  const block = new RegExp(mk.block);
  let m: RegExpExecArray | null;
  while ((m = block.exec(text))) {
    res.attempted = true;
    const start = m.index;
    const wrapped = !/invoke/i.test(m[0]);
    const p = wrapped ? start + m[0].length : start;
    if (!wrapped) ctx.notes.add('missing minimax:tool_call wrapper');
    const next = readInvokeBlock(text, start, p, res, ctx, (q) => parseInvoke(text, q, ctx, mk), (q, n) => {
      if (!wrapped) return n > 0 && !sticky(mk.invoke, text, q) ? q : null;
      const bc = sticky(mk.blockClose, text, q);
      return bc ? q + bc[0].length : null;
    });
    if (next === null) break;
    block.lastIndex = Math.max(block.lastIndex, next);
  }
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

export function renderMinimax(calls: ParsedCall[]): string {
  const body = calls
    .map((c) => {
      const params = Object.entries(c.arguments)
        .map(([k, v]) => `<parameter name="${k}">${typeof v === 'string' ? v : JSON.stringify(v)}</parameter>\n`)
        .join('');
      return `<invoke name="${c.name}">\n${params}</invoke>\n`;
    })
    .join('');
  return `<minimax:tool_call>\n${body}</minimax:tool_call>`;
}
