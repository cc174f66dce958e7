/**
 * OpenBMB MiniCPM (MiniCPM5 XML tool format):
 *   <function name="NAME"><param name="KEY">value</param>…</function>
 * a value may be wrapped in `<![CDATA[…]]>` (multi-line text); the space may be the tokenizer's `Ġ` (U+0120) or
 * missing (`<functionname="…">`), both as the model's tokens decode.
 *
 * Values are typed by the tool schema (xmlvalue.ts schemaTyped), text without one.
 * Strict (vLLM minicpm5): that markup with `</function>`; a parameter without a name or named twice makes the block
 * invalid; with tools given, a block naming an unknown tool or parameter is not a call (the server returns it as
 * content). Prose around blocks is content.
 * Lenient: single quotes, spacing/case, a missing `</param>` before the next tag.
 */
import { setOwn } from '../jsonish.ts';
import { findTool } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { rewound, skipWs, sticky } from '../util.ts';
import { paramSchema, schemaTyped } from '../xmlvalue.ts';
import { propertiesOf } from '../coerce.ts';

const SP = '(?: |\\u0120)?';
const STRICT = {
  fn: new RegExp(`<function${SP}name="([^"\\n<>]+)">`, 'g'),
  param: new RegExp(`<param${SP}name="([^"\\n<>]+)">`, 'y'),
  paramEnd: /<\/param>/g,
  fnClose: /<\/function>/y,
};
const LOOSE = {
  fn: /<\s*function(?:\s+|\u0120)?name\s*=\s*["']([^"'\n<>]+)["']\s*>/gi,
  param: /<\s*param(?:\s+|\u0120)?name\s*=\s*["']([^"'\n<>]+)["']\s*>/iy,
  paramEnd: /<\s*\/\s*param\s*>|<\s*param(?:\s+|\u0120)?name\s*=|<\s*\/\s*function\s*>/gi,
  fnClose: /<\s*\/\s*function\s*>/iy,
};

function uncdata(raw: string): string {
  const m = /^\s*<!\[CDATA\[([\s\S]*)\]\]>\s*$/.exec(raw);
  return m ? m[1]! : raw;
}

export function parseMinicpm(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const mk = ctx.loose ? LOOSE : STRICT;
  const fn = rewound(mk.fn);
  let m: RegExpExecArray | null;
  outer: while ((m = fn.exec(text))) {
    res.attempted = true;
    const start = m.index;
    const name = m[1]!.trim();
    const tool = findTool(ctx.tools, name);
    const props = propertiesOf(tool?.parameters);
    const args: Record<string, unknown> = {};
    let p = start + m[0].length;
    let end = -1;
    for (;;) {
      p = skipWs(text, p);
      if (p >= text.length) {
        res.ok = false;
        res.truncated = true;
        break outer;
      }
      const pm = sticky(mk.param, text, p);
      if (pm) {
        const key = pm[1]!.trim();
        const vs = p + pm[0].length;
        mk.paramEnd.lastIndex = vs;
        const pe = mk.paramEnd.exec(text);
        if (!pe) {
          res.ok = false;
          res.truncated = true;
          break outer;
        }
        const closed = /^<\s*\/\s*param/i.test(pe[0]);
        if (!closed) ctx.notes.add('missing closing tag');
        const dup = Object.hasOwn(args, key);
        const unknownParam = ctx.tools !== undefined && tool !== undefined && !Object.hasOwn(props, key);
        if (!ctx.loose && (dup || unknownParam)) {
          res.ok = false;
          fn.lastIndex = pe.index + pe[0].length;
          continue outer;
        }
        setOwn(args, key, schemaTyped(uncdata(text.slice(vs, pe.index)), paramSchema(ctx.tools, name, key)));
        p = closed ? pe.index + pe[0].length : pe.index;
        continue;
      }
      const cm = sticky(mk.fnClose, text, p);
      if (cm) {
        end = p + cm[0].length;
        break;
      }
      res.ok = false;
      continue outer;
    }
    // with tools, a block naming an unknown tool is content, not a call (vLLM keeps it in the text)
    if (!ctx.loose && ctx.tools !== undefined && !tool) {
      fn.lastIndex = end;
      continue;
    }
    res.calls.push({ name, arguments: args, start, end });
    res.spans.push([start, end]);
    fn.lastIndex = end;
  }
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

export function renderMinicpm(calls: ParsedCall[]): string {
  return calls
    .map((c) => {
      const params = Object.entries(c.arguments)
        .map(([k, v]) => {
          const s = typeof v === 'string' ? v : JSON.stringify(v);
          return `<param name="${k}">${/[<&\n]/.test(s) ? `<![CDATA[${s}]]>` : s}</param>`;
        })
        .join('');
      return `<function name="${c.name}">${params}</function>`;
    })
    .join('\n');
}
