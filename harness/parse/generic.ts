/**
 * The lenient tier's family-independent rescue: call-shaped JSON anywhere in the text (in code fences,
 * inside prose, in lists, in the OpenAI shape…) and Python-call syntax (`[f(a=1)]`, or `f(a=1)` standing
 * on its own line).
 *
 * Rules that keep it from inventing calls:
 *   - JSON must be call-shaped (see normalize.ts): a name key plus an arguments key, or a listed tool's name.
 *   - A Python call outside list brackets must stand alone on its line and have keyword arguments (or name a
 *     listed tool); positional arguments only map onto a listed tool's parameters, in schema order.
 *   - Truncated JSON/Python is never completed; it only sets `truncated`.
 */
import { propertiesOf } from './coerce.ts';
import { readPyCall, readPyCallList, type PyCall } from './pycall.ts';
import { findTool, looseCalls } from './normalize.ts';
import { type Located, type ParseCtx, type ParsedCall, withNotes } from './types.ts';
import { readValueAt, rewound, skipWs, SpanIndex } from './util.ts';
import { isPlainObject, setOwn } from './jsonish.ts';

export const CALL_LIKE = /["']?\b(?:name|function|tool|tool_name|function_name|action)\b["']?\s*:/;

const NAMESPACE = /^(?:functions|default_api|tools|api|tool)\./;

/** Map a Python call to a tool call, or null when it is not clearly one. */
export function pyCallToCall(c: PyCall, ctx: ParseCtx, inList: boolean): ParsedCall | null {
  let name = c.name;
  if (name.endsWith('.call') && !findTool(ctx.tools, name)) {
    // Llama 3.1 built-in tool syntax: <|python_tag|>brave_search.call(query="…")
    name = name.slice(0, -'.call'.length);
    ctx.notes.add('builtin tool call syntax');
  }
  if (name.includes('.') && !findTool(ctx.tools, name)) {
    const last = name.slice(name.lastIndexOf('.') + 1);
    if (findTool(ctx.tools, last) || NAMESPACE.test(name)) {
      name = last;
      ctx.notes.add('namespaced name');
    }
  }
  const tool = findTool(ctx.tools, name);
  let args: Record<string, unknown> = c.kwargs;
  const only = c.positional[0];
  if (tool && c.positional.length === 1 && Object.keys(c.kwargs).length === 0 && isPlainObject(only)) {
    // f({"city": "Paris"}): the arguments passed as one dict, when its keys are the tool's parameters
    const props = propertiesOf(tool.parameters);
    const keys = Object.keys(only);
    if (keys.length > 0 && keys.every((k) => Object.hasOwn(props, k))) {
      ctx.notes.add('arguments as one dict');
      return { name, arguments: only };
    }
  }
  if (c.positional.length > 0) {
    if (!tool) return null;
    const props = Object.keys(propertiesOf(tool.parameters));
    if (c.positional.length > props.length) return null;
    args = {};
    c.positional.forEach((v, i) => setOwn(args, props[i]!, v));
    for (const [k, v] of Object.entries(c.kwargs)) {
      if (Object.hasOwn(args, k)) return null;
      setOwn(args, k, v);
    }
    ctx.notes.add('positional arguments');
  }
  if (!inList && Object.keys(args).length === 0 && !tool) return null;
  return { name, arguments: args };
}

export interface GenericFind extends Located {
  format: 'json' | 'python';
}

export interface GenericResult {
  calls: GenericFind[];
  attempted: boolean;
  truncated: boolean;
  /** calls skipped inside a Python call list whose other calls were kept */
  rejected: string[];
}

function fenceRegions(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const re = /```[^\n`]*\n[\s\S]*?(?:```|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    out.push([m.index, m.index + m[0].length]);
    if (m[0].length === 0) re.lastIndex++;
  }
  return out;
}

// A call alone on its line, possibly in a list item, in backticks, or wrapped in a family's call marker
// (`<tool_call>f(a=1)</tool_call>`, `<|python_tag|>f(a=1)`).
// Written so that no two whitespace runs can trade characters (adjacent `[ \t]*` backtrack quadratically on
// long blank stretches): each optional part starts with a non-blank character and owns the blanks after it.
const OPEN_MARK = String.raw`(?:(?:<\s*tool_call\s*>|<\|python_tag\|>|\[TOOL_CALLS\]|>>>)[ \t]*)?`;
const CLOSE_MARK = String.raw`(?:(?:<\s*\/\s*tool_call\s*>|<\|eot_id\|>|<\|eom_id\|>|<\|im_end\|>|<\/s>)[ \t]*)?`;
const LINE_CALL = new RegExp(
  String.raw`^[ \t]*(?:(?:[-*]|\d+[.)])[ \t]+)?${OPEN_MARK}(?:\`{1,3})?([A-Za-z_][\w.]*)[ \t]*\(`,
  'gm',
);
const LINE_REST = new RegExp(String.raw`[ \t]*(?:;[ \t]*)?(?:\`{1,3}[ \t]*)?${CLOSE_MARK}(?:\r?\n|$)`, 'y');
const LIST_CALL = /\[\s*[A-Za-z_][\w.]*\s*\(/g;

/** A character that can start an object key (quoted, or bare in the loose reader). */
const KEY_START = /["'A-Za-z_$]/;
const BRACKET = /[{[]/g;

/** The position of the first `{` or `[` at or after `from`, or -1. */
function nextBracket(text: string, from: number): number {
  const m = rewound(BRACKET, from).exec(text);
  return m === null ? -1 : m.index;
}

/** Candidate Python calls examined at most; each read is charged to the parse's work budget, which says so when spent. */
const MAX_PY_CANDIDATES = 1_000_000;

export function genericScan(text: string, claimed: Array<[number, number]>, ctx: ParseCtx): GenericResult {
  const res: GenericResult = { calls: [], attempted: false, truncated: false, rejected: [] };
  const spans = new SpanIndex(claimed);
  let budget = MAX_PY_CANDIDATES;
  const work = ctx.scan?.budget;
  const spent = () => work?.exhausted === true;
  let truncChecked = false;

  // 1. call-shaped JSON. Reads are memoised per start position (util.ts), so a candidate nested inside an
  // earlier one costs a lookup, not a re-read: the whole loop is linear.
  // The next bracket is found by the regex engine, not by a loop over every character: in a short-lived process
  // (`toolgauge parse --jsonl`) that loop ran interpreted for most of its lines.
  for (let i = nextBracket(text, 0); i !== -1 && !spent(); i = nextBracket(text, i + 1)) {
    const c = text[i];
    if (spans.has(i)) continue;
    const n = skipWs(text, i + 1);
    // only what can open a call-shaped value: `[{`, `{"`, `{'`, `{key` (loose), `{{"` (doubled braces)
    if (
      c === '['
        ? text[n] !== '{'
        : !KEY_START.test(text[n] ?? '') && !(text[n] === '{' && /["']/.test(text[skipWs(text, n + 1)] ?? ''))
    )
      continue;
    const local: ParseCtx = withNotes(ctx, new Set());
    const r = readValueAt(text, i, local);
    if (!r.ok) {
      // one look is enough: every later truncated candidate ends at the same end of text
      if (r.truncated && !truncChecked) {
        truncChecked = true;
        if (CALL_LIKE.test(text.slice(i, i + 4000))) {
          res.truncated = true;
          res.attempted = true;
        }
      }
      // Starts nested inside a too-deep value would fail the same way: skip to where the depth ran out.
      if (r.deep) i = Math.max(i, r.pos - 1);
      continue;
    }
    const calls = looseCalls(r.value, local, { inMarker: false });
    if (!calls) {
      if (CALL_LIKE.test(text.slice(i, r.end)))
        res.attempted ||= /^\s*[[{]\s*["']?(?:name|function|tool)/.test(text.slice(i, i + 40));
      continue;
    }
    for (const x of local.notes) ctx.notes.add(x);
    for (const call of calls)
      res.calls.push({ name: call.name, arguments: call.arguments, start: i, end: r.end, format: 'json' });
    spans.add(i, r.end);
    i = r.end - 1;
  }

  // 2. Python calls in list brackets
  let m: RegExpExecArray | null;
  const listRe = rewound(LIST_CALL);
  while ((m = listRe.exec(text)) && budget-- > 0 && !spent()) {
    if (spans.has(m.index)) continue;
    res.attempted = true;
    const local: ParseCtx = withNotes(ctx, new Set());
    const r = readPyCallList(text, m.index, 'loose', local.notes, work);
    if (!r.ok) {
      res.truncated ||= r.truncated;
      continue;
    }
    const calls = r.calls.map((pc) => pyCallToCall(pc, local, true));
    if (calls.length === 0 || calls.some((x) => x === null)) continue;
    res.rejected.push(...r.rejected);
    for (const x of local.notes) ctx.notes.add(x);
    for (const call of calls)
      res.calls.push({ name: call!.name, arguments: call!.arguments, start: m.index, end: r.end, format: 'python' });
    spans.add(m.index, r.end);
    listRe.lastIndex = r.end;
  }

  // 3. a Python call alone on its line
  const lineRe = rewound(LINE_CALL);
  while ((m = lineRe.exec(text)) && budget-- > 0 && !spent()) {
    const at = m.index + m[0].lastIndexOf(m[1]!); // the name ends the match (only `\s*(` after it)
    if (spans.has(at)) continue;
    const local: ParseCtx = withNotes(ctx, new Set());
    const r = readPyCall(text, at, 'loose', local.notes, work);
    if (!r.ok) {
      if (r.truncated) {
        res.truncated = true;
        res.attempted = true;
      }
      continue;
    }
    LINE_REST.lastIndex = r.call.end;
    if (!LINE_REST.exec(text)) continue;
    const call = pyCallToCall(r.call, local, false);
    if (!call) continue;
    res.attempted = true;
    for (const x of local.notes) ctx.notes.add(x);
    res.calls.push({ name: call.name, arguments: call.arguments, start: at, end: r.call.end, format: 'python' });
    spans.add(at, r.call.end);
    lineRe.lastIndex = r.call.end;
  }

  if (res.calls.length > 0) {
    res.attempted = true;
    res.calls.sort((a, b) => a.start - b.start);
    const fences = fenceRegions(text);
    const fenced = new SpanIndex(fences);
    if (res.calls.some((c) => fenced.has(c.start))) ctx.notes.add('code fence');
  }
  return res;
}
