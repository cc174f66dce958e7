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
import { parseJsonish } from '../jsonish.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { readInvokeBlock, readInvokeElement, type InvokeMarks } from '../invoke.ts';
import { rewound, sticky } from '../util.ts';
import { schemaTyped } from '../xmlvalue.ts';

const D = '｜DSML｜';

/** `param` also captures the optional `string` attribute. */
interface Marks extends InvokeMarks {
  container: RegExp; // global: <｜DSML｜function_calls> | <｜DSML｜tool_calls>
}

const STRICT: Marks = {
  container: /<｜DSML｜(?:function_calls|tool_calls)>/g,
  blockClose: /<\/｜DSML｜(?:function_calls|tool_calls)>/y,
  invoke: /<｜DSML｜invoke name="([^"\n<>]+)">/y,
  invokeClose: /<\/｜DSML｜invoke>/y,
  param: /<｜DSML｜parameter name="([^"\n<>]+)"(?: string="(true|false)")?>/y,
  paramEnd: /<\/｜DSML｜parameter>/g,
};
const P = String.raw`[｜|]\s*DSML\s*[｜|]`;
const LOOSE: Marks = {
  container: new RegExp(String.raw`<\s*${P}\s*(?:function_calls|tool_calls)\s*>`, 'gi'),
  blockClose: new RegExp(String.raw`<\s*\/\s*${P}\s*(?:function_calls|tool_calls)\s*>`, 'iy'),
  invoke: new RegExp(String.raw`<\s*${P}\s*invoke\s+name\s*=\s*["']([^"'\n<>]+)["']\s*>`, 'iy'),
  invokeClose: new RegExp(String.raw`<\s*\/\s*${P}\s*invoke\s*>`, 'iy'),
  param: new RegExp(
    String.raw`<\s*${P}\s*parameter\s+name\s*=\s*["']([^"'\n<>]+)["'](?:\s+string\s*=\s*["'](true|false)["'])?\s*>`,
    'iy',
  ),
  paramEnd: new RegExp(String.raw`<\s*\/\s*${P}\s*parameter\s*>|<\s*${P}\s*parameter\s|<\s*\/\s*${P}\s*invoke`, 'gi'),
};

function typed(raw: string, stringAttr: string | undefined, schema: unknown): unknown {
  if (stringAttr === 'true') return raw;
  if (stringAttr === 'false') {
    const j = parseJsonish(raw.trim(), 'json');
    if (j.ok) return j.value;
  }
  return schemaTyped(raw, schema);
}

const DSML_ELEMENT = {
  cutWithin: 40,
  closesParam: (tag: string) => /^<\s*\//.test(tag) && /parameter/i.test(tag),
  value: (raw: string, param: RegExpExecArray, schema: unknown) => typed(raw, param[2], schema),
};

export function parseDeepseekDsml(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const mk = ctx.loose ? LOOSE : STRICT;
  const container = rewound(mk.container);
  let m: RegExpExecArray | null;
  while ((m = container.exec(text))) {
    res.attempted = true;
    const start = m.index;
    const next = readInvokeBlock(
      text,
      start,
      start + m[0].length,
      res,
      ctx,
      (p) => readInvokeElement(text, p, ctx, mk, DSML_ELEMENT),
      (p) => {
        const cc = sticky(mk.blockClose, text, p);
        return cc ? p + cc[0].length : null;
      },
    );
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
    .map(
      (c) =>
        `<${D}invoke name="${c.name}">\n${Object.entries(c.arguments)
          .map(([k, v]) => dsmlParam(k, v))
          .join('')}</${D}invoke>\n`,
    )
    .join('');
  return `<${D}function_calls>\n${body}</${D}function_calls>`;
}
