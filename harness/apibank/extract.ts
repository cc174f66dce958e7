// The reference runner's reading of a reply (docs/apibank.md, "Extraction"): the bracketed `[Name(` starts, each
// closed by quote- and bracket-balancing; from last to first, the first candidate that parses as a keyword-only
// call; values by Python's literal rules, a bare identifier as its name, and a string that starts with `[`, `{` or
// `(` read as a literal when it is one. Python's own parser decides what "parses" (CPython 3.11's grammar,
// emulated by the BFCL suite's `ast.parse`).
import { hashKey, literalEval, pyStrip, PyLiteralError, type PyValue } from '../core/pyliteral/index.ts';
import { UnhashableError } from '../core/pyliteral/equality.ts';
import type { Node } from '../core/pyliteral/index.ts';
import { parseEval, PySyntaxError } from '../core/pyliteral/index.ts';

// Python's `\w` on str patterns: letters, digits (every Unicode number) and the underscore.
const START = /\[[A-Za-z_][\p{L}\p{N}_]*\(/gu;
const CALL = /^\[([A-Za-z_][\p{L}\p{N}_]*)\(([\s\S]*)\)\]$/u;

/** Every balanced `[Name(…)]` candidate, in text order (`_iter_api_call_candidates`). */
export function callCandidates(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(START)) {
    const start = m.index;
    let square = 0;
    let paren = 0;
    let quote: string | null = null;
    let escaped = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i]!;
      if (quote !== null) {
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === quote) quote = null;
        continue;
      }
      if (c === "'" || c === '"') quote = c;
      else if (c === '[') square++;
      else if (c === ']') {
        square--;
        if (square === 0 && paren === 0) {
          out.push(pyStrip(text.slice(start, i + 1)));
          break;
        }
      } else if (c === '(') paren++;
      else if (c === ')') paren = Math.max(0, paren - 1);
    }
  }
  return out;
}

/** `ast.parse(f"_f({args})", mode="eval").body`, or the syntax error's message. */
function parseArgs(args: string): { node: Node } | { syntaxError: string } {
  try {
    return { node: parseEval(`_f(${args})`) };
  } catch (err) {
    if (err instanceof PySyntaxError) return { syntaxError: err.message };
    // A str the emulation cannot hold exactly (PyLiteralUnsupported) is treated as Python's refusal too.
    if (err instanceof PyLiteralError) return { syntaxError: err.message };
    throw err;
  }
}

function isKeywordOnlyCall(call: string): boolean {
  const m = CALL.exec(pyStrip(call));
  if (!m) return false;
  const args = pyStrip(m[2]!);
  if (!args) return true;
  const p = parseArgs(args);
  return 'node' in p && p.node.k === 'Call' && p.node.args.length === 0;
}

/** `extract_api_call`: the last parseable candidate, else the last candidate, else the whole reply stripped. */
export function extractApiCall(text: string | null | undefined): string {
  const raw = text ?? '';
  const candidates = callCandidates(raw);
  for (let i = candidates.length - 1; i >= 0; i--) if (isKeywordOnlyCall(candidates[i]!)) return candidates[i]!;
  return candidates.length ? candidates[candidates.length - 1]! : pyStrip(raw);
}

export class ApiCallParseError extends Error {
  override name = 'ApiCallParseError';
}

/** A parsed call: its name and its keyword arguments in order, as Python values. */
export interface ParsedCall {
  name: string;
  params: Array<[string, PyValue]>;
}

/** `parse_api_call`: throws ApiCallParseError with the reference's message when the reply has no usable call. */
export function parseApiCall(text: string | null | undefined): ParsedCall {
  const call = extractApiCall(text);
  const m = CALL.exec(call);
  if (!m) throw new ApiCallParseError('no [ApiName(...)] call found');
  const name = m[1]!;
  const args = pyStrip(m[2]!);
  if (!args) return { name, params: [] };
  const p = parseArgs(args);
  if ('syntaxError' in p) throw new ApiCallParseError(`invalid API call syntax: ${p.syntaxError}`);
  const node = p.node;
  if (node.k !== 'Call' || node.args.length) throw new ApiCallParseError('API call must use keyword arguments only');
  const params = new Map<string, PyValue>();
  for (const kw of node.keywords) {
    if (kw.arg === null) throw new ApiCallParseError('**kwargs are not supported in API calls');
    params.set(kw.arg, literalOrName(kw.value));
  }
  return { name, params: [...params].map(([k, v]) => [k, normalizePy(v)]) };
}

/** `_literal_or_name`: a bare name is its text; anything else must be what `ast.literal_eval` accepts. */
function literalOrName(n: Node): PyValue {
  if (n.k === 'Name') return { t: 'str', v: n.id };
  try {
    return literalOfNode(n);
  } catch (err) {
    if (err instanceof NotLiteral || err instanceof UnhashableError)
      throw new ApiCallParseError(`unsupported argument expression: ${n.k}`);
    throw err;
  }
}

class NotLiteral extends Error {}

/** `ast.literal_eval` of an already-parsed node (CPython 3.11's `_convert`). */
export function literalOfNode(n: Node): PyValue {
  switch (n.k) {
    case 'Constant':
      return n.value;
    case 'Tuple':
      return { t: 'tuple', items: n.elts.map(literalOfNode) };
    case 'List':
      return { t: 'list', items: n.elts.map(literalOfNode) };
    case 'Set':
      return { t: 'set', items: dedupe(n.elts.map(literalOfNode)) };
    case 'Call':
      if (n.func.k === 'Name' && n.func.id === 'set' && !n.args.length && !n.keywords.length)
        return { t: 'set', items: [] };
      throw new NotLiteral();
    case 'Dict': {
      if (n.keys.length !== n.values.length || n.keys.some((k) => k === null)) throw new NotLiteral();
      const entries = new Map<string, [PyValue, PyValue]>();
      n.keys.forEach((k, i) => {
        const key = literalOfNode(k!);
        const value = literalOfNode(n.values[i]!);
        const h = hashKey(key);
        const prev = entries.get(h);
        entries.set(h, [prev ? prev[0] : key, value]);
      });
      return { t: 'dict', entries: [...entries.values()] };
    }
    case 'BinOp': {
      if (n.op !== 'Add' && n.op !== 'Sub') throw new NotLiteral();
      const left = signedNum(n.left);
      const right = num(n.right);
      if (right.t !== 'complex') throw new NotLiteral();
      const re =
        (left.t === 'complex' ? left.re : Number(left.t === 'int' ? left.v : (left as { v: number }).v)) +
        (n.op === 'Add' ? right.re : -right.re);
      const im = (left.t === 'complex' ? left.im : 0) + (n.op === 'Add' ? right.im : -right.im);
      return { t: 'complex', re, im };
    }
    default:
      return signedNum(n);
  }
}

function dedupe(items: PyValue[]): PyValue[] {
  const seen = new Map<string, PyValue>();
  for (const v of items) if (!seen.has(hashKey(v))) seen.set(hashKey(v), v);
  return [...seen.values()];
}

function num(n: Node): PyValue {
  if (n.k === 'Constant' && (n.value.t === 'int' || n.value.t === 'float' || n.value.t === 'complex')) return n.value;
  throw new NotLiteral();
}

function signedNum(n: Node): PyValue {
  if (n.k === 'UnaryOp' && (n.op === 'UAdd' || n.op === 'USub')) {
    const v = num(n.operand);
    if (n.op === 'UAdd') return v;
    if (v.t === 'int') return { t: 'int', v: -v.v };
    if (v.t === 'float') return { t: 'float', v: -v.v };
    if (v.t === 'complex') return { t: 'complex', re: -v.re, im: -v.im };
  }
  return num(n);
}

/** `_normalize_value`: a string that starts with `[`, `{` or `(` becomes its literal when it is one. */
export function normalizePy(v: PyValue): PyValue {
  if (v.t !== 'str' || !'[{('.includes(v.v.slice(0, 1)) || !v.v) return v;
  try {
    return literalEval(v.v);
  } catch {
    // `except Exception: return value` — any failure keeps the string.
    return v;
  }
}
