/**
 * Qwen3-Coder / Qwen3.5 / Nemotron-3 XML calls:
 *   <tool_call>\n<function=f>\n<parameter=a>\nvalue\n</parameter>\n</function>\n</tool_call>
 * and Seed-OSS's variant inside `<seed:tool_call>…</seed:tool_call>` (seed_oss.ts uses this engine).
 *
 * Parameter values are raw text: one leading and one trailing newline are dropped (the template adds them) and
 * the value is typed by the tool schema (xmlvalue.ts schemaTyped: unions, `float`, nullables); without a schema
 * for the parameter the text stays a string — vLLM's qwen3coder semantics.
 *
 * Strict (what vLLM's qwen3coder parser accepts): `<function=NAME>` blocks with `<parameter=…>` values and
 * `</function>`, inside the wrapper or without it (a call missing its opener is still a call, also when a wrapped
 * call follows); a value may lack `</parameter>` when the next `<parameter=` or `</function>` ends it; a wrapper
 * may lack `</tool_call>`. Prose around the blocks is content. Unlike vLLM, a block cut off by the end of the text
 * is reported as truncated, not returned.
 * Lenient: sloppy tag whitespace/case and quotes around names, a missing `</function>` when the next block or a
 * wrapper close follows.
 */
import { setOwn } from '../jsonish.ts';
import { emptyResult, type FamilyResult, type ParseCtx, type ParsedCall } from '../types.ts';
import { flagged, located, rewound, skipWs } from '../util.ts';
import { paramSchema, schemaTyped } from '../xmlvalue.ts';

export interface Tags {
  open: RegExp; // wrapper opener (sticky)
  close: RegExp; // wrapper closer (sticky)
  fn: RegExp; // <function=NAME> (sticky)
  fnClose: RegExp; // </function> (sticky)
  param: RegExp; // <parameter=NAME> (sticky)
  /** global search for a block start: the wrapper opener or a bare function opener */
  search: RegExp;
}

export const QWEN_STRICT: Tags = {
  open: /<tool_call>/y,
  close: /<\/tool_call>/y,
  fn: /<function=([^>\n<]+)>/y,
  fnClose: /<\/function>/y,
  param: /<parameter=([^>\n<]+)>/y,
  search: /<tool_call>|<function=/g,
};
export const QWEN_LOOSE: Tags = {
  open: /<\s*tool_call\s*>/iy,
  close: /<\s*\/\s*tool_call\s*>/iy,
  fn: /<\s*function\s*=\s*["']?([^>\n<"']+?)["']?\s*>/iy,
  fnClose: /<\s*\/\s*function\s*>/iy,
  param: /<\s*parameter\s*=\s*["']?([^>\n<"']+?)["']?\s*>/iy,
  search: /<\s*tool_call\s*>|<\s*function\s*=/gi,
};

function at(re: RegExp, text: string, pos: number): RegExpExecArray | null {
  re.lastIndex = pos;
  return re.exec(text);
}

type FnResult = { ok: true; call: ParsedCall; end: number } | { ok: false; truncated: boolean; at?: number };

/** The next match of a global regex at or after a position; answers are reused while still ahead (linear). */
export function regexFinder(text: string, re: RegExp): (from: number) => { index: number; length: number } | null {
  const g = flagged(re, 'g');
  let last: { index: number; length: number } | null | undefined;
  let lastFrom = -1;
  return (from) => {
    if (last !== undefined && from >= lastFrom && (last === null || last.index >= from)) return last;
    g.lastIndex = from;
    const m = g.exec(text);
    last = m ? { index: m.index, length: m[0].length } : null;
    lastFrom = from;
    return last;
  };
}

const PARAM_CLOSE_LOOSE = /<\s*\/\s*parameter\s*>/gi;
const PARAM_CLOSE_STRICT = /<\/parameter>/g;
/** a `<parameter=` that starts a line: the structural start of the next value */
const NEXT_PARAM = /\n[ \t]*<\s*parameter\s*=/gi;
const FN_CLOSE_ANY = /<\s*\/\s*function\s*>/gi;

interface Finders {
  paramClose: (from: number) => { index: number; length: number } | null;
  nextParam: (from: number) => { index: number; length: number } | null;
  fnClose: (from: number) => { index: number; length: number } | null;
}

const finderCache = new WeakMap<ParseCtx, { text: string; loose: boolean; f: Finders }>();

function findersFor(text: string, ctx: ParseCtx): Finders {
  const hit = finderCache.get(ctx);
  if (hit && hit.text === text && hit.loose === ctx.loose) return hit.f;
  const f: Finders = {
    paramClose: regexFinder(text, ctx.loose ? PARAM_CLOSE_LOOSE : PARAM_CLOSE_STRICT),
    nextParam: regexFinder(text, NEXT_PARAM),
    fnClose: regexFinder(text, FN_CLOSE_ANY),
  };
  finderCache.set(ctx, { text, loose: ctx.loose, f });
  return f;
}

/**
 * Where the value starting at `from` ends: its `</parameter>`, unless a line-starting `<parameter=` comes first
 * (then the close is missing and that parameter ends it), else the next `</function>` (close missing too).
 */
function valueEnd(from: number, f: Finders): { end: number; after: number; closed: boolean } | null {
  const close = f.paramClose(from);
  const next = f.nextParam(from);
  if (close && (!next || close.index < next.index))
    return { end: close.index, after: close.index + close.length, closed: true };
  if (next) return { end: next.index + 1, after: next.index + 1, closed: false };
  const fc = f.fnClose(from);
  if (fc) return { end: fc.index, after: fc.index, closed: false };
  return null;
}

/** One `<function=…>…</function>` block at `pos`. */
export function parseFunctionBlock(text: string, pos: number, ctx: ParseCtx, tags: Tags): FnResult {
  const fm = at(tags.fn, text, pos);
  if (!fm) return { ok: false, truncated: !text.slice(pos, pos + 200).includes('>') };
  const name = ctx.loose ? fm[1]!.trim() : fm[1]!;
  if (name === '') return { ok: false, truncated: false };
  const args: Record<string, unknown> = {};
  const finders = findersFor(text, ctx);
  let p = pos + fm[0].length;
  for (;;) {
    p = skipWs(text, p);
    if (p >= text.length) return { ok: false, truncated: true };
    const pm = at(tags.param, text, p);
    if (pm) {
      const pname = ctx.loose ? pm[1]!.trim() : pm[1]!;
      const vstart = p + pm[0].length;
      const ve = valueEnd(vstart, finders);
      if (!ve) return { ok: false, truncated: true };
      if (!ve.closed) ctx.notes.add('missing closing tag');
      let raw = text.slice(vstart, ve.end);
      if (raw.startsWith('\n')) raw = raw.slice(1);
      if (raw.endsWith('\n')) raw = raw.slice(0, -1);
      setOwn(args, pname, schemaTyped(raw, paramSchema(ctx.tools, name, pname)));
      p = ve.after;
      continue;
    }
    const cm = at(tags.fnClose, text, p);
    if (cm) return { ok: true, call: { name, arguments: args }, end: p + cm[0].length };
    if (ctx.loose && (at(tags.close, text, p) || at(tags.fn, text, p) || at(tags.open, text, p))) {
      ctx.notes.add('missing closing tag');
      return { ok: true, call: { name, arguments: args }, end: p };
    }
    return { ok: false, truncated: false, at: p };
  }
}

/** All function blocks, wrapped or not (see the module comment); `tags` picks the wrapper. */
export function parseXmlCalls(
  text: string,
  ctx: ParseCtx,
  strictTags: Tags,
  looseTags: Tags,
  wrapperNote: string,
): FamilyResult {
  const res = emptyResult();
  const tags = ctx.loose ? looseTags : strictTags;
  const search = rewound(tags.search);
  let m: RegExpExecArray | null;
  while ((m = search.exec(text))) {
    const start = m.index;
    const wrapped = at(tags.open, text, start) !== null;
    const p = wrapped ? skipWs(text, start + m[0].length) : start;
    if (!at(tags.fn, text, p)) {
      // a wrapper holding something else (a hermes JSON block) is not ours; a cut-off function tag is
      if (/^<\s*function\s*=?\s*$/i.test(text.slice(p, p + 16)) || (wrapped && p >= text.length)) {
        res.attempted = true;
        res.truncated = true;
        res.ok = false;
      }
      continue;
    }
    // `<function=f>{json}</function>` is functionary v3.1, not this family
    const fm = at(tags.fn, text, p)!;
    if (text[skipWs(text, p + fm[0].length)] === '{') continue;
    res.attempted = true;
    const fr = parseFunctionBlock(text, p, ctx, tags);
    if (!fr.ok) {
      res.ok = false;
      if (fr.truncated) res.truncated = true;
      if (!ctx.loose || fr.truncated) break; // strict fails as a whole; nothing follows a truncation
      if (fr.at !== undefined) search.lastIndex = Math.max(search.lastIndex, fr.at);
      continue;
    }
    let end = fr.end;
    const q = skipWs(text, fr.end);
    const cm = at(tags.close, text, q);
    // the wrapper's close (also a stray one after an unwrapped block) belongs to the call
    if (cm) end = q + cm[0].length;
    else if (wrapped) ctx.notes.add('missing closing tag');
    if (!wrapped) ctx.notes.add(wrapperNote);
    res.calls.push(located(fr.call, start, end));
    res.spans.push([start, end]);
    search.lastIndex = end;
  }
  if (!ctx.loose && !res.ok) res.calls = [];
  return res;
}

export function parseQwen3Xml(text: string, ctx: ParseCtx): FamilyResult {
  return parseXmlCalls(text, ctx, QWEN_STRICT, QWEN_LOOSE, 'missing tool_call wrapper');
}

/** Parameters as the Qwen3-Coder template writes them: strings as is, everything else as JSON. */
export function xmlFunctionBlock(c: ParsedCall, newlines = true): string {
  const nl = newlines ? '\n' : '';
  const params = Object.entries(c.arguments)
    .map(([k, v]) => `<parameter=${k}>${nl}${typeof v === 'string' ? v : JSON.stringify(v)}${nl}</parameter>\n`)
    .join('');
  return `<function=${c.name}>\n${params}</function>`;
}

export function renderQwen3Xml(calls: ParsedCall[]): string {
  return calls.map((c) => `<tool_call>\n${xmlFunctionBlock(c)}\n</tool_call>`).join('\n');
}
