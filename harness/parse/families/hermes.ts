/**
 * Hermes-2-Pro / Qwen2.5 / Qwen3: `<tool_call>\n{"name": "f", "arguments": {…}}\n</tool_call>`, one block per call.
 *
 * Strict: each block holds exactly one JSON object `{name, arguments}` (arguments an object) and is closed
 * by `</tool_call>`, except that a complete last block may end the text without it (vLLM hermes reads
 * `<tool_call>{…}` up to the end); prose outside blocks is allowed (the server returns it as content). Any malformed block
 * makes the strict tier return no call. The JSON is read sequentially, so `</tool_call>` inside an argument
 * string does not end the block.
 * Lenient: sloppy tag whitespace/case, loose JSON, alias keys / OpenAI shape / lists inside a block,
 * a missing closing tag once the JSON is complete, stray characters before the closing tag.
 */
import { looseCalls, strictCall } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { located, onlyTrailer, readValueAt, rewound, skipWs } from '../util.ts';

const OPEN_STRICT = /<tool_call>/g;
const OPEN_LOOSE = /<\s*tool_call\s*>/gi;
const CLOSE_STRICT = /<\/tool_call>/y;
const CLOSE_LOOSE = /<\s*\/\s*tool_call\s*>/iy;
const CLOSE_LOOSE_G = /<\s*\/\s*tool_call\s*>/gi;
const QWEN3_BLOCK = /^<\s*function\s*=/i;
const STRAY_BEFORE_CLOSE = /^[\s}\]]*$/;

export function parseHermes(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const open = rewound(ctx.loose ? OPEN_LOOSE : OPEN_STRICT);
  let m: RegExpExecArray | null;
  let resumeAt = 0;
  // The next closing tag at or after a position; positions only grow, so one forward scan serves all blocks.
  const closeRe = CLOSE_LOOSE_G;
  let pending: RegExpExecArray | null | undefined;
  const nextClose = (from: number): RegExpExecArray | null => {
    while (pending === undefined || (pending !== null && pending.index < from)) {
      if (pending !== undefined) closeRe.lastIndex = Math.max(closeRe.lastIndex, from);
      else closeRe.lastIndex = from;
      pending = closeRe.exec(text);
    }
    return pending;
  };
  while ((m = open.exec(text))) {
    if (m.index < resumeAt) continue;
    const start = m.index;
    let p = skipWs(text, start + m[0].length);
    if (text.charCodeAt(p) === 0x3c && QWEN3_BLOCK.test(text.slice(p, p + 16))) continue; // a qwen3_xml block, not ours
    res.attempted = true;
    if (m[0] !== '<tool_call>') ctx.notes.add('sloppy markers');
    const closeM = ctx.loose ? nextClose(p) : null;
    const r = readValueAt(text, p, ctx);
    if (!r.ok) {
      res.ok = false;
      if (r.truncated) res.truncated = true;
      continue;
    }
    let calls: ParsedCall[] | null;
    if (ctx.loose) calls = looseCalls(r.value, ctx, { inMarker: true });
    else {
      const c = strictCall(r.value, { argsKey: 'arguments' });
      calls = c ? [c] : null;
    }
    if (!calls) {
      res.ok = false;
      continue;
    }
    p = skipWs(text, r.end);
    const close = rewound(ctx.loose ? CLOSE_LOOSE : CLOSE_STRICT, p);
    const cm = close.exec(text);
    let end: number;
    if (cm) end = p + cm[0].length;
    else if (!ctx.loose && onlyTrailer(text, p)) {
      // the last block's `</tool_call>` may be missing when the complete JSON ends the text (vLLM hermes)
      end = text.length;
    } else if (!ctx.loose) {
      res.ok = false;
      continue;
    } else if (closeM && STRAY_BEFORE_CLOSE.test(text.slice(p, closeM.index))) {
      ctx.notes.add('stray characters before closing tag');
      end = closeM.index + closeM[0].length;
    } else {
      ctx.notes.add('missing closing tag');
      end = onlyTrailer(text, p) ? text.length : p;
    }
    for (const c of calls) res.calls.push(located(c, start, end));
    res.spans.push([start, end]);
    resumeAt = end;
    open.lastIndex = end;
  }
  return res;
}

export function renderHermes(calls: ParsedCall[]): string {
  return calls
    .map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n</tool_call>`)
    .join('\n');
}
