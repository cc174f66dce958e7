/**
 * Qwen3-Coder / Qwen3.5 XML calls:
 *   <tool_call>\n<function=f>\n<parameter=a>\nvalue\n</parameter>\n</function>\n</tool_call>
 *
 * Parameter values are raw text: one leading and one trailing newline are dropped (the template adds them),
 * `null` (any case) is null, and with tools given the value is typed by the parameter's schema
 * (integer/number/boolean parsed, object/array parsed as JSON; unknown parameters and failed conversions
 * stay strings) — vLLM's qwen3coder semantics. Without tools every value is a string.
 *
 * Strict: `<tool_call>` + one `<function=NAME>` + `<parameter=…>…</parameter>`* + `</function>` + `</tool_call>`.
 * Lenient: sloppy tag whitespace/case, a missing `</parameter>` (value ends at the next tag), a missing
 * `</function>` or `</tool_call>`, `<function=…>` blocks without the `<tool_call>` wrapper.
 */
import { qwenParamValue, propertiesOf } from '../coerce.ts';
import { setOwn } from '../jsonish.ts';
import { findTool } from '../normalize.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { skipWs } from '../util.ts';

interface Tags {
  open: RegExp; // <tool_call>
  close: RegExp; // </tool_call>
  fn: RegExp; // <function=NAME>
  fnClose: RegExp; // </function>
  param: RegExp; // <parameter=NAME>
  paramClose: RegExp; // </parameter>
}

const STRICT: Tags = {
  open: /<tool_call>/y,
  close: /<\/tool_call>/y,
  fn: /<function=([^>\n<]+)>/y,
  fnClose: /<\/function>/y,
  param: /<parameter=([^>\n<]+)>/y,
  paramClose: /<\/parameter>/y,
};
const LOOSE: Tags = {
  open: /<\s*tool_call\s*>/iy,
  close: /<\s*\/\s*tool_call\s*>/iy,
  fn: /<\s*function\s*=\s*["']?([^>\n<"']+?)["']?\s*>/iy,
  fnClose: /<\s*\/\s*function\s*>/iy,
  param: /<\s*parameter\s*=\s*["']?([^>\n<"']+?)["']?\s*>/iy,
  paramClose: /<\s*\/\s*parameter\s*>/iy,
};

function at(re: RegExp, text: string, pos: number): RegExpExecArray | null {
  re.lastIndex = pos;
  return re.exec(text);
}

type FnResult = { ok: true; call: ParsedCall; end: number } | { ok: false; truncated: boolean };

function parseFunction(text: string, pos: number, ctx: ParseCtx, tags: Tags, lastClose: number): FnResult {
  const fm = at(tags.fn, text, pos);
  if (!fm) return { ok: false, truncated: !text.slice(pos).includes('>') };
  const name = ctx.loose ? fm[1]!.trim() : fm[1]!;
  if (name === '') return { ok: false, truncated: false };
  const props = propertiesOf(findTool(ctx.tools, name)?.parameters);
  const hasSchema = ctx.tools !== undefined;
  const args: Record<string, unknown> = {};
  let p = pos + fm[0].length;
  for (;;) {
    p = skipWs(text, p);
    if (p >= text.length) return { ok: false, truncated: true };
    const pm = at(tags.param, text, p);
    if (pm) {
      const pname = ctx.loose ? pm[1]!.trim() : pm[1]!;
      const vstart = p + pm[0].length;
      const { end: vend, after, closed } = valueEnd(text, vstart, ctx, lastClose);
      if (vend < 0) return { ok: false, truncated: true };
      if (!closed) ctx.notes.add('missing closing tag');
      let raw = text.slice(vstart, vend);
      if (raw.startsWith('\n')) raw = raw.slice(1);
      if (raw.endsWith('\n')) raw = raw.slice(0, -1);
      const schema = hasSchema ? (Object.prototype.hasOwnProperty.call(props, pname) ? props[pname] : undefined) : undefined;
      setOwn(args, pname, qwenParamValue(raw, schema));
      p = after;
      continue;
    }
    const cm = at(tags.fnClose, text, p);
    if (cm) return { ok: true, call: { name, arguments: args }, end: p + cm[0].length };
    if (ctx.loose && (at(tags.close, text, p) || at(tags.fn, text, p) || at(tags.open, text, p))) {
      ctx.notes.add('missing closing tag');
      return { ok: true, call: { name, arguments: args }, end: p };
    }
    return { ok: false, truncated: false };
  }
}

/** Where a parameter value ends: `</parameter>`, or (lenient) the next parameter / function end. */
function valueEnd(text: string, from: number, ctx: ParseCtx, lastClose: number): { end: number; after: number; closed: boolean } {
  if (!ctx.loose) {
    // one forward search per value; a text with no later `</parameter>` answers at once (keeps repeated
    // unclosed blocks linear)
    if (from > lastClose) return { end: -1, after: -1, closed: false };
    const i = text.indexOf('</parameter>', from);
    return i < 0 ? { end: -1, after: -1, closed: false } : { end: i, after: i + '</parameter>'.length, closed: true };
  }
  const re = /<\s*\/\s*parameter\s*>|<\s*parameter\s*=|<\s*\/?\s*function\s*[=>]|<\s*\/?\s*tool_call\s*>/gi;
  re.lastIndex = from;
  const m = re.exec(text);
  if (!m) return { end: -1, after: -1, closed: false };
  if (/^<\s*\/\s*parameter/i.test(m[0])) return { end: m.index, after: m.index + m[0].length, closed: true };
  return { end: m.index, after: m.index, closed: false };
}

export function parseQwen3Xml(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const tags = ctx.loose ? LOOSE : STRICT;
  const lastClose = text.lastIndexOf('</parameter>');
  const search = ctx.loose ? /<\s*tool_call\s*>|<\s*function\s*=/gi : /<tool_call>/g;
  let m: RegExpExecArray | null;
  while ((m = search.exec(text))) {
    const start = m.index;
    const wrapped = at(tags.open, text, start) !== null;
    let p = wrapped ? skipWs(text, start + m[0].length) : start;
    if (!at(tags.fn, text, p) && !/^<\s*function\s*=/i.test(text.slice(p, p + 16))) continue; // hermes block
    // `<function=f>{json}</function>` is functionary v3.1, not this family
    const fm = at(tags.fn, text, p);
    if (fm && text[skipWs(text, p + fm[0].length)] === '{') continue;
    res.attempted = true;
    const fr = parseFunction(text, p, ctx, tags, lastClose);
    if (!fr.ok) {
      res.ok = false;
      if (fr.truncated) res.truncated = true;
      continue;
    }
    p = skipWs(text, fr.end);
    let end = fr.end;
    if (wrapped) {
      const cm = at(tags.close, text, p);
      if (cm) end = p + cm[0].length;
      else if (!ctx.loose) {
        res.ok = false;
        continue;
      } else ctx.notes.add('missing closing tag');
    } else ctx.notes.add('missing tool_call wrapper');
    res.calls.push({ ...fr.call, start, end });
    res.spans.push([start, end]);
    search.lastIndex = end;
  }
  return res;
}

export function renderQwen3Xml(calls: ParsedCall[]): string {
  return calls
    .map((c) => {
      const params = Object.entries(c.arguments)
        .map(([k, v]) => `<parameter=${k}>\n${typeof v === 'string' ? v : JSON.stringify(v)}\n</parameter>\n`)
        .join('');
      return `<tool_call>\n<function=${c.name}>\n${params}</function>\n</tool_call>`;
    })
    .join('\n');
}
