/**
 * MiniMax-M3's tool-call markup: every tag is preceded by the namespace marker `]<]minimax[>[` (NS below), and
 * arguments are nested elements instead of `<parameter name=…>`:
 *   NS<tool_call>
 *   NS<invoke name="NAME">NS<KEY>value NS</KEY>NS<OBJ>NS<K>v NS</K>NS</OBJ>NS<LIST>NS<item>…NS</item>NS</LIST>NS</invoke>
 *   NS</tool_call>
 * An element holds either text (typed by its schema, as MiniMax-M2's parameters) or child elements: an object,
 * or, when the schema says array (or, without a schema, every child is `<item>`), a list of the children. A key
 * written twice in an object becomes a list of its values (vLLM minimax_m3).
 * The same reading serves both tiers; the block's close may be cut off at the end of the text, a cut-off
 * invoke is truncated.
 */
import { emptyResult, type FamilyResult, type Located, type ParseCtx } from '../types.ts';
import { isPlainObject, located, skipWs } from '../util.ts';
import { paramSchema, paramTypes, schemaTyped } from '../xmlvalue.ts';
import { setOwn } from '../jsonish.ts';

export const M3_NS = ']<]minimax[>[';
const MAX_DEPTH = 32;

type Node = { text: string } | { children: Array<[string, Node]> };
type Read<T> = { ok: true; value: T; end: number } | { ok: false; truncated: boolean };

const OPEN = /<([A-Za-z_][\w.-]*)>/y;
const INVOKE = /<invoke name="([^"\n<>]+)">/y;

function fail(text: string, p: number): { ok: false; truncated: boolean } {
  return { ok: false, truncated: p >= text.length || text.indexOf(M3_NS, p) < 0 };
}

/** NS<tag> at p (whitespace before allowed); the tag and the position after it. */
function openAt(text: string, p: number): { tag: string; end: number } | null {
  const q = skipWs(text, p);
  if (!text.startsWith(M3_NS, q)) return null;
  OPEN.lastIndex = q + M3_NS.length;
  const m = OPEN.exec(text);
  return m ? { tag: m[1]!, end: OPEN.lastIndex } : null;
}

function closeAt(text: string, p: number, tag: string, ws: boolean): number {
  const q = ws ? skipWs(text, p) : p;
  const close = `${M3_NS}</${tag}>`;
  return text.startsWith(close, q) ? q + close.length : -1;
}

/** The content of an element whose open tag ends at p, up to and including its close tag. */
function readElement(text: string, p: number, tag: string, depth: number): Read<Node> {
  if (depth > MAX_DEPTH) return { ok: false, truncated: false };
  const first = openAt(text, p);
  if (!first) {
    // text up to the next marker, which must close this element
    const ns = text.indexOf(M3_NS, p);
    if (ns < 0) return { ok: false, truncated: true };
    const end = closeAt(text, ns, tag, false);
    if (end < 0) return fail(text, ns + M3_NS.length);
    return { ok: true, value: { text: text.slice(p, ns) }, end };
  }
  const children: Array<[string, Node]> = [];
  let q = p;
  for (;;) {
    const end = closeAt(text, q, tag, true);
    if (end >= 0) return { ok: true, value: { children }, end };
    const o = openAt(text, q);
    if (!o) return fail(text, skipWs(text, q));
    const r = readElement(text, o.end, o.tag, depth + 1);
    if (!r.ok) return r;
    children.push([o.tag, r.value]);
    q = r.end;
  }
}

function propSchema(schema: unknown, key: string): unknown {
  if (!isPlainObject(schema)) return undefined;
  if (isPlainObject(schema.properties) && Object.hasOwn(schema.properties, key)) return schema.properties[key];
  return isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

/** A node's value, typed by its schema (undefined: none known). */
function nodeValue(node: Node, schema: unknown): unknown {
  if ('text' in node) return schemaTyped(node.text, schema);
  const types = paramTypes(schema);
  const asList = types.has('array')
    ? !types.has('object') || node.children.every(([t]) => t === 'item')
    : types.size === 0 && node.children.length > 0 && node.children.every(([t]) => t === 'item');
  if (asList) {
    const items = isPlainObject(schema) ? schema.items : undefined;
    return node.children.map(([, n]) => nodeValue(n, items));
  }
  return objectOf(node.children, (key) => propSchema(schema, key));
}

function objectOf(children: Array<[string, Node]>, schemaOf: (key: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const seen = new Map<string, unknown[]>();
  for (const [key, n] of children) {
    const v = nodeValue(n, schemaOf(key));
    const prev = seen.get(key);
    if (prev) {
      prev.push(v);
      setOwn(out, key, prev);
    } else {
      seen.set(key, [v]);
      setOwn(out, key, v);
    }
  }
  return out;
}

/** Every `NS<tool_call>` block in the text; calls, spans and failure as the family parsers report them. */
export function parseMinimaxM3(text: string, ctx: ParseCtx): FamilyResult {
  const res = emptyResult();
  const opener = `${M3_NS}<tool_call>`;
  let from = 0;
  for (let start = text.indexOf(opener, from); start >= 0; start = text.indexOf(opener, from)) {
    res.attempted = true;
    let p = start + opener.length;
    const calls: Located[] = [];
    let end = -1;
    for (;;) {
      const close = closeAt(text, p, 'tool_call', true);
      if (close >= 0 && calls.length > 0) {
        end = close;
        break;
      }
      if (calls.length > 0 && skipWs(text, p) >= text.length) {
        end = text.length; // the block's close cut off as a stop token
        break;
      }
      const q = skipWs(text, p);
      if (!text.startsWith(M3_NS, q)) break;
      INVOKE.lastIndex = q + M3_NS.length;
      const m = INVOKE.exec(text);
      if (!m) {
        res.truncated ||= INVOKE.lastIndex >= text.length || text.length - q < M3_NS.length + 16;
        break;
      }
      const name = m[1]!;
      const children: Array<[string, Node]> = [];
      let r = INVOKE.lastIndex;
      let closed = -1;
      for (;;) {
        closed = closeAt(text, r, 'invoke', true);
        if (closed >= 0) break;
        const o = openAt(text, r);
        if (!o) break;
        const el = readElement(text, o.end, o.tag, 1);
        if (!el.ok) {
          res.truncated ||= el.truncated;
          break;
        }
        children.push([o.tag, el.value]);
        r = el.end;
      }
      if (closed < 0) {
        res.truncated ||= skipWs(text, r) >= text.length || text.indexOf(M3_NS, r) < 0;
        break;
      }
      calls.push({
        name,
        arguments: objectOf(children, (key) => paramSchema(ctx.tools, name, key)),
        start,
        end: closed,
      });
      p = closed;
    }
    if (end < 0) {
      res.ok = false;
      from = start + opener.length;
      continue;
    }
    for (const c of calls) res.calls.push(located(c, c.start, end));
    res.spans.push([start, end]);
    from = end;
  }
  if (!res.ok) res.calls = [];
  return res;
}
