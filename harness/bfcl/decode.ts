// BFCL's decoders, emulated: how a model's raw output becomes `[{name: {param: value}}]` for the AST checker
// (decode_ast) and call strings `name(a=1, b='x')` for multi-turn execution (decode_execute).
//
// - prompt mode (bfcl_eval/model_handler/utils.py default_decode_ast_prompting / ast_parse / resolve_ast_call):
//   strip "`\n " from both ends, add missing outer brackets, strip whitespace and single quotes, then
//   `ast.parse(mode="eval")`; every element must be a call; only keyword arguments count, and each value goes
//   through resolve_ast_by_type (attribute chains give dotted names: `math.sqrt(x=1)` is "math.sqrt").
// - fc (OpenAI-style handlers): the result is a list of `{name: arguments}`; arguments is JSON text (json.loads)
//   or, as other FC handlers store it, already an object.
// - hermes (the Qwen FC handler): `<tool_call>\n{json}\n</tool_call>` blocks; unreadable JSON blocks are dropped.
import { hashKey, pyRepr, type PyValue } from '../core/pyliteral/index.ts';
import type { DecodedCall } from './checker/ast.ts';
import { evaluate } from './pyast/evaluate.ts';
import type { Keyword, Node } from '../core/pyliteral/index.ts';
import { parseEval, PySyntaxError } from '../core/pyliteral/index.ts';
import { unparse } from './pyast/unparse.ts';
import { pyJsonLoads, PyJsonError } from '../core/pyliteral/pyjson.ts';
import { typeName } from '../core/pyliteral/builtins.ts';
import { BfclCrash, BfclUnsupported, dictGet } from './py.ts';
import { pyStrip } from '../core/pyliteral/index.ts';

export type ResultFormat = 'fc' | 'pythonic' | 'hermes';

/** The decoder raised (BFCL catches this: "Failed to decode"). */
export class DecodeError extends Error {
  override name = 'DecodeError';
}

/** What decode_ast returned: any Python value (checked afterwards by isFunctionCallingFormat). */
export type Decoded = PyValue;

function fail(msg: string): never {
  throw new DecodeError(msg);
}

// ---------------------------------------------------------------------------------------------------------
// prompt mode

/** Python's str.strip(chars). */
function stripChars(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a]!)) a++;
  while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** default_decode_ast_prompting(result) for Python: the decoded list of `{name: {param: value}}` dicts. */
export function decodeAstPrompting(result: PyValue): Decoded {
  if (result.t !== 'str') fail(`AttributeError: '${typeName(result)}' object has no attribute 'strip'`);
  let text = stripChars(result.v, '`\n ');
  if (!text.startsWith('[')) text = '[' + text;
  if (!text.endsWith(']')) text = text + ']';
  return astParsePython(text);
}

/** ast_parse(input_str, ReturnFormat.PYTHON). */
export function astParsePython(input: string): Decoded {
  const cleaned = stripChars(pyStrip(input), "'");
  let body: Node;
  try {
    body = parseEval(cleaned);
  } catch (err) {
    if (err instanceof PySyntaxError) fail(`SyntaxError: ${err.message}`);
    throw err;
  }
  const extracted: PyValue[] = [];
  if (body.k === 'Call') extracted.push(resolveAstCall(body));
  else {
    if (body.k !== 'List' && body.k !== 'Tuple' && body.k !== 'Set')
      fail(`AttributeError: '${body.k}' object has no attribute 'elts'`);
    for (const elem of body.elts) {
      if (elem.k !== 'Call') fail('AssertionError');
      extracted.push(resolveAstCall(elem));
    }
  }
  return { t: 'list', items: extracted };
}

/** resolve_ast_call: `{dotted.name: {keyword: value}}`; positional arguments are ignored. */
function resolveAstCall(call: Node & { k: 'Call' }): PyValue {
  const parts: string[] = [];
  let f = call.func;
  while (f.k === 'Attribute') {
    parts.push(f.attr);
    f = f.value;
  }
  if (f.k === 'Name') parts.push(f.id);
  const name = parts.reverse().join('.');
  return { t: 'dict', entries: [[{ t: 'str', v: name }, argsDict(call.keywords)]] };
}

function argsDict(keywords: Keyword[]): PyValue {
  const entries: Array<[PyValue, PyValue]> = [];
  for (const kw of keywords) {
    const key: PyValue = kw.arg === null ? { t: 'none' } : { t: 'str', v: kw.arg };
    const value = resolveAstByType(kw.value);
    const at = entries.findIndex(([k]) => hashKey(k) === hashKey(key));
    if (at >= 0) entries[at]![1] = value;
    else entries.push([key, value]);
  }
  return { t: 'dict', entries };
}

/** resolve_ast_by_type: the Python value BFCL reads out of one argument node. */
export function resolveAstByType(n: Node): PyValue {
  switch (n.k) {
    case 'Constant':
      return n.value.t === 'ellipsis' ? { t: 'str', v: '...' } : n.value;
    case 'UnaryOp': {
      // `-value.operand.value`, whatever the operator: +5, ~5 and `not 5` all give -5.
      const o = n.operand;
      if (o.k !== 'Constant')
        fail(
          o.k === 'Attribute' ||
            o.k === 'Subscript' ||
            o.k === 'NamedExpr' ||
            o.k === 'Await' ||
            o.k === 'Yield' ||
            o.k === 'YieldFrom'
            ? 'TypeError: bad operand type for unary -'
            : `AttributeError: '${o.k}' object has no attribute 'value'`,
        );
      const v = o.value;
      if (v.t === 'int') return { t: 'int', v: -v.v };
      if (v.t === 'bool') return { t: 'int', v: v.v ? -1n : 0n };
      if (v.t === 'float') return { t: 'float', v: -v.v };
      if (v.t === 'complex') return { t: 'complex', re: -v.re, im: -v.im };
      return fail(`TypeError: bad operand type for unary -: '${typeName(v)}'`);
    }
    case 'List':
      return { t: 'list', items: n.elts.map(resolveAstByType) };
    case 'Tuple':
      return { t: 'tuple', items: n.elts.map(resolveAstByType) };
    case 'Dict': {
      const entries: Array<[PyValue, PyValue]> = [];
      for (let i = 0; i < n.keys.length; i++) {
        const kn = n.keys[i]!;
        if (kn === null) fail("Unsupported AST type: <class 'NoneType'>");
        const k = resolveAstByType(kn);
        const v = resolveAstByType(n.values[i]!);
        let key: string;
        try {
          key = hashKey(k);
        } catch {
          fail(`TypeError: unhashable type: '${typeName(k)}'`);
        }
        const found = entries.findIndex(([ek]) => hashKey(ek) === key);
        if (found >= 0) entries[found]![1] = v;
        else entries.push([k, v]);
      }
      return { t: 'dict', entries };
    }
    case 'BinOp': {
      const r = evaluate(n);
      if ('ok' in r) return r.ok;
      if ('err' in r) fail(r.err);
      throw new BfclUnsupported(`eval of a BinOp argument: ${r.unknown}`);
    }
    case 'Name':
      return { t: 'str', v: n.id };
    case 'Call':
      return n.keywords.length === 0 ? { t: 'str', v: unparse(n) } : resolveAstCall(n);
    case 'Lambda':
      return fail("TypeError: 'expr' object is not subscriptable");
    case 'Subscript':
      return { t: 'str', v: `${unparse(n.value)}[${unparse(n.slice)}]` };
    default:
      fail(`Unsupported AST type: <class 'ast.${n.k}'>`);
  }
}

/**
 * decoded_output_to_execution_list: each decoded call as `name(a=<repr>, …)`, nested call dicts written as calls.
 */
export function executionList(decoded: PyValue): string[] {
  const out: string[] = [];
  for (const call of listItems(decoded)) {
    if (call.t !== 'dict') fail(`AttributeError: '${typeName(call)}' object has no attribute 'items'`);
    for (const [k, v] of call.entries) {
      if (v.t !== 'dict') fail(`AttributeError: '${typeName(v)}' object has no attribute 'items'`);
      out.push(`${pyStr(k)}(${v.entries.map(([a, x]) => `${pyStr(a)}=${nestedValue(x)}`).join(', ')})`);
    }
  }
  return out;
}

/** parse_nested_value: a dict whose values are all dicts reads as a call; other dicts as `{'k': v}`; else repr. */
function nestedValue(v: PyValue): string {
  if (v.t !== 'dict') return pyRepr(v);
  if (v.entries.every(([, x]) => x.t === 'dict')) {
    const first = v.entries[0];
    if (!first) fail('IndexError: list index out of range');
    const args = first[1];
    if (args.t !== 'dict') fail('AttributeError');
    return `${pyStr(first[0])}(${args.entries.map(([a, x]) => `${pyStr(a)}=${nestedValue(x)}`).join(', ')})`;
  }
  return `{${v.entries.map(([k, x]) => `'${pyStr(k)}': ${nestedValue(x)}`).join(', ')}}`;
}

/** str(x) as an f-string writes a dict key or function name. */
function pyStr(v: PyValue): string {
  return v.t === 'str' ? v.v : pyRepr(v);
}

/** What `for x in v` visits: items of a list, keys of a dict, characters of a str. */
function listItems(v: PyValue): PyValue[] {
  if (v.t === 'list' || v.t === 'tuple') return v.items;
  if (v.t === 'dict') return v.entries.map(([k]) => k);
  if (v.t === 'str') return Array.from(v.v, (c): PyValue => ({ t: 'str', v: c }));
  fail(`TypeError: '${typeName(v)}' object is not iterable`);
}

/** default_decode_execute_prompting. */
export function decodeExecutePrompting(result: PyValue): string[] {
  return executionList(decodeAstPrompting(result));
}

// ---------------------------------------------------------------------------------------------------------
// fc

function jsonArgs(v: PyValue): PyValue {
  if (v.t !== 'str') return v;
  try {
    return pyJsonLoads(v.v);
  } catch (err) {
    if (err instanceof PyJsonError) fail(`JSONDecodeError: ${err.message}`);
    throw err;
  }
}

/** The FC handler's decode_ast: `[{name: json.loads(arguments)}]`. A text reply (no tool calls) fails to decode. */
export function decodeAstFc(result: PyValue): Decoded {
  const items = listItems(result);
  const out: PyValue[] = [];
  for (const item of items) {
    if (item.t !== 'dict') fail(`AttributeError: '${typeName(item)}' object has no attribute 'keys'`);
    const first = item.entries[0];
    if (!first) fail('IndexError: list index out of range');
    out.push({ t: 'dict', entries: [[first[0], jsonArgs(first[1])]] });
  }
  return { t: 'list', items: out };
}

/** convert_to_function_call: `name(k=<repr>,k2=<repr>)` (joined with "," and no space, as BFCL writes it). */
export function decodeExecuteFc(result: PyValue): string[] {
  const items = result.t === 'dict' ? [result] : listItems(result);
  const out: string[] = [];
  for (const call of items) {
    if (call.t !== 'dict') fail(`AttributeError: '${typeName(call)}' object has no attribute 'items'`);
    for (const [k, raw] of call.entries) {
      const v = jsonArgs(raw);
      if (v.t !== 'dict') fail(`AttributeError: '${typeName(v)}' object has no attribute 'items'`);
      out.push(`${pyStr(k)}(${v.entries.map(([a, x]) => `${pyStr(a)}=${pyRepr(x)}`).join(',')})`);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// hermes (Qwen FC handler)

/** _extract_tool_calls: every `<tool_call>\n…\n</tool_call>` block that json.loads reads. */
function hermesToolCalls(text: string): PyValue[] {
  const out: PyValue[] = [];
  for (const m of text.matchAll(/<tool_call>\n([\s\S]*?)\n<\/tool_call>/g)) {
    try {
      out.push(pyJsonLoads(m[1]!));
    } catch (err) {
      if (!(err instanceof PyJsonError)) throw err;
    }
  }
  return out;
}

function hermesCalls(result: PyValue): Array<{ name: PyValue; args: PyValue }> {
  if (result.t !== 'str') fail('TypeError: expected string or bytes-like object');
  const calls = hermesToolCalls(result.v);
  if (calls.some((c) => c.t !== 'dict')) fail('ValueError: Model did not return a list of function calls');
  return calls.map((c) => {
    const name = dictGet(c, 'name');
    if (name === undefined) fail("KeyError: 'name'");
    const args = dictGet(c, 'arguments');
    if (args === undefined) fail("KeyError: 'arguments'");
    if (name.t === 'list' || name.t === 'dict') fail(`TypeError: unhashable type: '${typeName(name)}'`);
    return { name, args };
  });
}

/** QwenFCHandler.decode_ast. */
export function decodeAstHermes(result: PyValue): Decoded {
  const items: PyValue[] = [];
  for (const { name, args } of hermesCalls(result)) {
    if (args.t !== 'dict') fail(`AttributeError: '${typeName(args)}' object has no attribute 'items'`);
    // Python builds {name: …} per call; equal names in one list item cannot collide.
    items.push({ t: 'dict', entries: [[name, args]] });
  }
  return { t: 'list', items };
}

/** QwenFCHandler.decode_execute: arguments given as JSON text are loaded, as convert_to_function_call does. */
export function decodeExecuteHermes(result: PyValue): string[] {
  const calls = hermesCalls(result).map(({ name, args }): PyValue => ({ t: 'dict', entries: [[name, args]] }));
  return decodeExecuteFc({ t: 'list', items: calls });
}

// ---------------------------------------------------------------------------------------------------------
// dispatch and shape checks

export function decodeAst(format: ResultFormat, result: PyValue): Decoded {
  if (format === 'fc') return decodeAstFc(result);
  if (format === 'hermes') return decodeAstHermes(result);
  return decodeAstPrompting(result);
}

export function decodeExecute(format: ResultFormat, result: PyValue): string[] {
  if (format === 'fc') return decodeExecuteFc(result);
  if (format === 'hermes') return decodeExecuteHermes(result);
  return decodeExecutePrompting(result);
}

/** is_function_calling_format_output: a list of one-key dicts whose value is a dict. */
export function isFunctionCallingFormat(v: PyValue): boolean {
  if (v.t !== 'list') return false;
  return v.items.every((item) => item.t === 'dict' && item.entries.length === 1 && item.entries[0]![1].t === 'dict');
}

/** is_empty_output: not in call format, `[]`, or `[{}]` count as "no call". */
export function isEmptyOutput(v: PyValue): boolean {
  if (!isFunctionCallingFormat(v)) return true;
  const items = (v as { items: PyValue[] }).items;
  return items.length === 0 || (items.length === 1 && (items[0] as { entries: unknown[] }).entries.length === 0);
}

/** is_empty_execute_response. */
export function isEmptyExecuteResponse(list: readonly unknown[]): boolean {
  if (list.length === 0) return true;
  const first = list[0];
  return list.length === 1 && (typeof first === 'string' || Array.isArray(first)) && first.length === 0;
}

/** The decoded calls in the checker's shape (call after isFunctionCallingFormat). */
export function toDecodedCalls(v: PyValue): DecodedCall[] {
  if (v.t !== 'list') throw new BfclCrash('TypeError', 'not a list');
  return v.items.map((item) => {
    const [name, params] = (item as { entries: Array<[PyValue, PyValue]> }).entries[0]!;
    return { name, params: (params as { entries: Array<[PyValue, PyValue]> }).entries };
  });
}
