/**
 * DeepSeek V3.2 / V4 "DSML" markup (｜ is the full-width U+FF5C):
 *   <｜DSML｜function_calls>            (V3.2; V4 writes <｜DSML｜tool_calls>)
 *   <｜DSML｜invoke name="NAME">
 *   <｜DSML｜parameter name="KEY" string="true">raw text</｜DSML｜parameter>
 *   <｜DSML｜parameter name="KEY" string="false">JSON</｜DSML｜parameter>
 *   </｜DSML｜invoke>
 *   </｜DSML｜function_calls>
 *
 * Values: `string="true"` keeps the text; `string="false"` is JSON (falling back to the schema's typing, then the
 * text); without the attribute the schema types it (xmlvalue.ts schemaTyped).
 * Strict (vLLM deepseekv32/v4, llama.cpp): that markup, either container name; the container's close may be cut
 * off at the end of the text. Prose before the block is content.
 * Lenient: ASCII `|` for `｜`, spacing, single quotes, a missing `</｜DSML｜parameter>` or `</｜DSML｜invoke>` before
 * the next tag.
 */
import { parseJsonish, setOwn } from '../jsonish.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { readInvokeBlock, skipWs, sticky, type ElementRead } from '../util.ts';
import { paramSchema, schemaTyped } from '../xmlvalue.ts';

const D = '｜DSML｜';

interface Marks {
  container: RegExp; // global: <｜DSML｜function_calls> | <｜DSML｜tool_calls>
  containerClose: RegExp; // sticky
  invoke: RegExp; // sticky, captures the name
  invokeClose: RegExp; // sticky
  param: RegExp; // sticky, captures name and optional string attr
  paramClose: RegExp; // global
}

const STRICT: Marks = {
  container: /<｜DSML｜(?:function_calls|tool_calls)>/g,
  containerClose: /<\/｜DSML｜(?:function_calls|tool_calls)>/y,
  invoke: /<｜DSML｜invoke name="([^"\n<>]+)">/y,
  invokeClose: /<\/｜DSML｜invoke>/y,
  param: /<｜DSML｜parameter name="([^"\n<>]+)"(?: string="(true|false)")?>/y,
  paramClose: /<\/｜DSML｜parameter>/g,
};
const P = String.raw`[｜|]\s*DSML\s*[｜|]`;
const LOOSE: Marks = {
  container: new RegExp(String.raw`<\s*${P}\s*(?:function_calls|tool_calls)\s*>`, 'gi'),
  containerClose: new RegExp(String.raw`<\s*\/\s*${P}\s*(?:function_calls|tool_calls)\s*>`, 'iy'),
  invoke: new RegExp(String.raw`<\s*${P}\s*invoke\s+name\s*=\s*["']([^"'\n<>]+)["']\s*>`, 'iy'),
  invokeClose: new RegExp(String.raw`<\s*\/\s*${P}\s*invoke\s*>`, 'iy'),
  param: new RegExp(String.raw`<\s*${P}\s*parameter\s+name\s*=\s*["']([^"'\n<>]+)["'](?:\s+string\s*=\s*["'](true|false)["'])?\s*>`, 'iy'),
  paramClose: new RegExp(String.raw`<\s*\/\s*${P}\s*parameter\s*>|<\s*${P}\s*parameter\s|<\s*\/\s*${P}\s*invoke`, 'gi'),
};

function typed(raw: string, stringAttr: string | undefined, schema: unknown): unknown {
  if (stringAttr === 'true') return raw;
  if (stringAttr === 'false') {
    const j = parseJsonish(raw.trim(), 'json');
    if (j.ok) return j.value;
  }
  return schemaTyped(raw, schema);
}

function parseInvoke(text: string, pos: number, ctx: ParseCtx, mk: Marks): ElementRead {
  const im = sticky(mk.invoke, text, pos);
  if (!im) return { ok: false, truncated: text.length - pos < 40 };
  const name = im[1]!.trim();
  const args: Record<string, unknown> = {};
  let p = pos + im[0].length;
  for (;;) {
    p = skipWs(text, p);
    if (p >= text.length) return { ok: false, truncated: true };
    const pm = sticky(mk.param, text, p);
    if (pm) {
      const vs = p + pm[0].length;
      mk.paramClose.lastIndex = vs;
      const pc = mk.paramClose.exec(text);
      if (!pc) return { ok: false, truncated: true };
      const closed = /^<\s*\//.test(pc[0]) && /parameter/i.test(pc[0]);
      if (!closed) ctx.notes.add('missing closing tag');
      const key = pm[1]!.trim();
      setOwn(args, key, typed(text.slice(vs, pc.index), pm[2], paramSchema(ctx.tools, name, key)));
      p = closed ? pc.index + pc[0].length : pc.index;
      continue;
    }
    const cm = sticky(mk.invokeClose, text, p);
    if (cm) return { ok: true, call: { name, arguments: args }, end: p + cm[0].length };
    if (ctx.loose && (sticky(mk.invoke, text, p) || sticky(mk.containerClose, text, p))) {
      ctx.notes.add('missing closing tag');
      return { ok: true, call: { name, arguments: args }, end: p };
    }
    return { ok: false, truncated: false, at: p };
  }
}

export function parseDeepseekDsml(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const mk = ctx.loose ? LOOSE : STRICT;
  const container = new RegExp(mk.container);
  let m: RegExpExecArray | null;
  while ((m = container.exec(text))) {
    res.attempted = true;
    const start = m.index;
    const next = readInvokeBlock(text, start, start + m[0].length, res, ctx, (p) => parseInvoke(text, p, ctx, mk), (p) => {
      const cc = sticky(mk.containerClose, text, p);
      return cc ? p + cc[0].length : null;
    });
    if (next === null) break;
    container.lastIndex = Math.max(container.lastIndex, next);
  }
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

function dsmlParam(k: string, v: unknown): string {
  return typeof v === 'string'
    ? `<${D}parameter name="${k}" string="true">${v}</${D}parameter>\n`
    : `<${D}parameter name="${k}" string="false">${JSON.stringify(v)}</${D}parameter>\n`;
}

/** V3.2 spelling (`function_calls`). */
export function renderDeepseekDsml(calls: ParsedCall[]): string {
  const body = calls
    .map((c) => `<${D}invoke name="${c.name}">\n${Object.entries(c.arguments).map(([k, v]) => dsmlParam(k, v)).join('')}</${D}invoke>\n`)
    .join('');
  return `<${D}function_calls>\n${body}</${D}function_calls>`;
}
