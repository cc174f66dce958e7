/**
 * Zhipu GLM-4.5 / 4.6 / 4.7:
 *   4.5/4.6: <tool_call>NAME\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n…</tool_call>
 *   4.7:     <tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>…</tool_call>
 * one block per call; a call without arguments is `<tool_call>NAME</tool_call>`.
 *
 * Values (xmlvalue.ts glmTyped, vLLM glm4_moe semantics): a parameter the schema types as string keeps its text;
 * anything else is read as JSON, then as a Python literal, then kept as text.
 *
 * Strict (vLLM glm4_moe / glm47 and llama.cpp): the name up to the first newline or `<arg_key>`, then
 * `<arg_key>`/`<arg_value>` pairs separated by whitespace only, then `</tool_call>`. Prose around blocks is
 * content. A hermes JSON block (`<tool_call>{…}`) or a Qwen3 `<function=` block is not this family.
 * Lenient: sloppy tag whitespace/case, a missing `</arg_value>` (ends at the next tag), a missing `</tool_call>`
 * before the next block (never at the end of the text: that is a truncation).
 */
import { setOwn } from '../jsonish.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import type { ElementRead } from '../invoke.ts';
import { isToolName, located, rewound, skipWs, sticky } from '../util.ts';
import { glmTyped, paramSchema } from '../xmlvalue.ts';

const OPEN_STRICT = /<tool_call>/g;
const OPEN_LOOSE = /<\s*tool_call\s*>/gi;
const FUNCTION_TAG = /^<\s*function/i;
/** a name, then a newline, an <arg_key> or the closing tag: GLM's shape */
const GLM_HEAD = /^[ \t]*([^\s<>{}[\]]+)[ \t]*(?:\n|<\s*arg_key|<\s*\/\s*tool_call)/i;

interface Marks {
  keyOpen: RegExp;
  keyClose: RegExp;
  valOpen: RegExp;
  valClose: RegExp;
  close: RegExp;
}
const STRICT: Marks = {
  keyOpen: /<arg_key>/y,
  keyClose: /<\/arg_key>/g,
  valOpen: /<arg_value>/y,
  valClose: /<\/arg_value>/g,
  close: /<\/tool_call>/y,
};
const LOOSE: Marks = {
  keyOpen: /<\s*arg_key\s*>/iy,
  keyClose: /<\s*\/\s*arg_key\s*>/gi,
  valOpen: /<\s*arg_value\s*>/iy,
  valClose: /<\s*\/\s*arg_value\s*>|<\s*arg_key\s*>|<\s*\/\s*tool_call\s*>/gi,
  close: /<\s*\/\s*tool_call\s*>/iy,
};

function parseBlock(text: string, bodyStart: number, ctx: ParseCtx, mk: Marks): ElementRead {
  // name: up to a newline or the first tag
  let p = bodyStart;
  const stop = /[\n<]/g;
  stop.lastIndex = p;
  const sm = stop.exec(text);
  if (!sm) return { ok: false, truncated: true };
  const name = text.slice(p, sm.index).trim();
  if (!isToolName(name)) return { ok: false, truncated: false };
  p = sm.index;
  const args: Record<string, unknown> = {};
  for (;;) {
    p = skipWs(text, p);
    if (p >= text.length) return { ok: false, truncated: true };
    const km = sticky(mk.keyOpen, text, p);
    if (km) {
      if (ctx.scan) ctx.scan.budget.work += 1;
      const ks = p + km[0].length;
      mk.keyClose.lastIndex = ks;
      const kc = mk.keyClose.exec(text);
      if (!kc) return { ok: false, truncated: true };
      const key = text.slice(ks, kc.index).trim();
      p = skipWs(text, kc.index + kc[0].length);
      const vm = sticky(mk.valOpen, text, p);
      if (!vm) return { ok: false, truncated: p >= text.length };
      const vs = p + vm[0].length;
      mk.valClose.lastIndex = vs;
      const vc = mk.valClose.exec(text);
      if (!vc) return { ok: false, truncated: true };
      const closed = /^<\s*\/\s*arg_value/i.test(vc[0]);
      if (!closed) ctx.notes.add('missing closing tag');
      setOwn(args, key, glmTyped(text.slice(vs, vc.index), paramSchema(ctx.tools, name, key)));
      p = closed ? vc.index + vc[0].length : vc.index;
      continue;
    }
    const cm = sticky(mk.close, text, p);
    if (cm) return { ok: true, call: { name, arguments: args }, end: p + cm[0].length };
    if (ctx.loose && /^<\s*tool_call\s*>/i.test(text.slice(p, p + 16))) {
      ctx.notes.add('missing closing tag');
      return { ok: true, call: { name, arguments: args }, end: p };
    }
    return { ok: false, truncated: false, at: p };
  }
}

export function parseGlm(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const mk = ctx.loose ? LOOSE : STRICT;
  const open = rewound(ctx.loose ? OPEN_LOOSE : OPEN_STRICT);
  let m: RegExpExecArray | null;
  while ((m = open.exec(text))) {
    const start = m.index;
    const bodyStart = start + m[0].length;
    const at = skipWs(text, bodyStart);
    const c0 = text.charCodeAt(at);
    // <tool_call>{json} is hermes, <tool_call><function= is qwen3_xml
    if (c0 === 0x7b || c0 === 0x5b || (c0 === 0x3c && FUNCTION_TAG.test(text.slice(at, at + 12)))) continue;
    const head = GLM_HEAD.exec(text.slice(bodyStart, bodyStart + 300));
    if (!head) {
      if (text.length - bodyStart < 300 && !/[\n<]/.test(text.slice(bodyStart))) {
        res.attempted = true;
        res.truncated = true;
        res.ok = false;
      }
      continue;
    }
    res.attempted = true;
    const b = parseBlock(text, bodyStart, ctx, mk);
    if (!b.ok) {
      res.ok = false;
      res.truncated ||= b.truncated;
      // strict fails as a whole; a truncated block runs to the end; else resume where the block broke
      if (!ctx.loose || b.truncated) break;
      if (b.at !== undefined) open.lastIndex = Math.max(open.lastIndex, b.at);
      continue;
    }
    res.calls.push(located(b.call, start, b.end));
    res.spans.push([start, b.end]);
    open.lastIndex = b.end;
  }
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

function glmValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** GLM-4.5/4.6 layout (newlines between the parts). */
export function renderGlm(calls: ParsedCall[]): string {
  return calls
    .map((c) => {
      const pairs = Object.entries(c.arguments)
        .map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${glmValue(v)}</arg_value>\n`)
        .join('');
      return `<tool_call>${c.name}\n${pairs}</tool_call>`;
    })
    .join('\n');
}
