/**
 * MiniMax-M2 (and M2.1/M2.5; MiniMax-M3's namespaced nested elements are read by minimax_m3.ts):
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
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { readInvokeBlock, readInvokeElement, type InvokeMarks } from '../invoke.ts';
import { rewound, sticky } from '../util.ts';
import { schemaTyped } from '../xmlvalue.ts';
import { M3_NS, parseMinimaxM3 } from './minimax_m3.ts';

interface Marks extends InvokeMarks {
  block: RegExp; // global: wrapper opener (loose also a bare <invoke)
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

const MINIMAX_ELEMENT = {
  cutWithin: 30,
  closesParam: (tag: string) => /^<\s*\/\s*parameter/i.test(tag),
  value: (raw: string, _param: RegExpExecArray, schema: unknown) => schemaTyped(raw, schema),
};

export function parseMinimax(text: string, ctx: ParseCtx): FamilyResult {
  // MiniMax-M3 writes namespaced, nested elements (minimax_m3.ts)
  if (text.includes(M3_NS)) return parseMinimaxM3(text, ctx);
  const res = emptyResult();
  const mk = ctx.loose ? LOOSE : STRICT;
  const block = rewound(mk.block);
  let m: RegExpExecArray | null;
  while ((m = block.exec(text))) {
    res.attempted = true;
    const start = m.index;
    const wrapped = !/invoke/i.test(m[0]);
    const p = wrapped ? start + m[0].length : start;
    if (!wrapped) ctx.notes.add('missing minimax:tool_call wrapper');
    const next = readInvokeBlock(
      text,
      start,
      p,
      res,
      ctx,
      (q) => readInvokeElement(text, q, ctx, mk, MINIMAX_ELEMENT),
      (q, n) => {
        if (!wrapped) return n > 0 && !sticky(mk.invoke, text, q) ? q : null;
        const bc = sticky(mk.blockClose, text, q);
        return bc ? q + bc[0].length : null;
      },
    );
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
