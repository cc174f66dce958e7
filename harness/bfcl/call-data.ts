// A multi-turn call string (`cd(folder='x')`, from the model's decoded output or a ground-truth answer) as data for
// the executor: the method to run and its argument values — or, without running anything, the result BFCL's
// evaluator would record for a call it cannot run. BFCL itself `eval`s the string in a namespace with the case's
// instances and Python's builtins; toolgauge never hands the string to Python. It applies BFCL's textual rewrite
// (every `name(` becomes `<instance>.name(`, string contents included), parses the result with pyast, and accepts
// only a call of one of the case's documented functions with literal arguments. Everything else is answered
// here: BFCL's refusal of kill/exit/…, `name 'x' is not defined` for an unknown plain name (as Python says it),
// and a toolgauge refusal for anything else (a builtin, an attribute chain, an expression BFCL would evaluate).
import type { PyValue } from '../core/pyliteral/index.ts';
import { evaluate } from './pyast/evaluate.ts';
import type { Node } from '../core/pyliteral/index.ts';
import { parseEval, PySyntaxError } from '../core/pyliteral/index.ts';

/** The method names BFCL's evaluator refuses before evaluating a call. */
export const REFUSED_NAMES: ReadonlySet<string> = new Set([
  'kill',
  'exit',
  'quit',
  'remove',
  'unlink',
  'popen',
  'Popen',
  'run',
]);

/** A Python value as tagged JSON (bfcl_exec.py's value_of builds it back; nothing else is ever built). */
export type TaggedValue =
  | ['n']
  | ['b', boolean]
  | ['i', string]
  | ['f', string]
  | ['s', string]
  | ['c', string, string]
  | ['y', string]
  | ['e']
  | ['l' | 't' | 'S', TaggedValue[]]
  | ['d', Array<[TaggedValue, TaggedValue]>];

export interface CallData {
  name: string;
  args: TaggedValue[];
  kwargs: Array<[string, TaggedValue]>;
}

export type PreparedCall = { call: CallData } | { result: string };

export interface CallScope {
  /** The instances' public methods → the instance variable BFCL names them by (`<label>_<Class>_instance`). */
  methodToVar: ReadonlyMap<string, string>;
  /** The methods that may run: the case's function docs (held-out ones included) that the instances have. */
  allowed: ReadonlySet<string>;
}

const floatText = (v: number): string => (Object.is(v, -0) ? '-0.0' : String(v));

export function encodeValue(v: PyValue): TaggedValue {
  switch (v.t) {
    case 'none':
      return ['n'];
    case 'bool':
      return ['b', v.v];
    case 'int':
      return ['i', v.v.toString()];
    case 'float':
      return ['f', floatText(v.v)];
    case 'str':
      return ['s', v.v];
    case 'complex':
      return ['c', floatText(v.re), floatText(v.im)];
    case 'bytes':
      return ['y', Buffer.from(v.v).toString('base64')];
    case 'ellipsis':
      return ['e'];
    case 'list':
      return ['l', v.items.map(encodeValue)];
    case 'tuple':
      return ['t', v.items.map(encodeValue)];
    case 'set':
      return ['S', v.items.map(encodeValue)];
    case 'dict':
      return ['d', v.entries.map(([k, x]): [TaggedValue, TaggedValue] => [encodeValue(k), encodeValue(x)])];
  }
}

// Python's `\w` and `\s` on str patterns (re.UNICODE): str.isalnum() or "_"; str.isspace().
const WORD = /^[\p{L}\p{N}_]$/u;
const SPACE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u;
const ASCII_START = /^[a-zA-Z_]$/;

/**
 * BFCL's `re.sub(r"\b([a-zA-Z_]\w*)\s*(?=\()", repl, call)`: every word that starts with an ASCII letter or `_`,
 * stands after a non-word character and is followed (after optional whitespace, which is dropped) by `(`, is
 * replaced by `<var>.<word>` when it is a method of the case's instances, and by itself otherwise.
 */
export function prefixMethods(call: string, methodToVar: ReadonlyMap<string, string>): string {
  const chars = Array.from(call);
  let out = '';
  let last = 0;
  let i = 0;
  while (i < chars.length) {
    if (ASCII_START.test(chars[i]!) && (i === 0 || !WORD.test(chars[i - 1]!))) {
      let j = i;
      while (j < chars.length && WORD.test(chars[j]!)) j++;
      let k = j;
      while (k < chars.length && SPACE.test(chars[k]!)) k++;
      if (chars[k] === '(') {
        const name = chars.slice(i, j).join('');
        const v = methodToVar.get(name);
        out += chars.slice(last, i).join('') + (v === undefined ? name : `${v}.${name}`);
        last = i = k;
        continue;
      }
      i = j;
      continue;
    }
    i++;
  }
  return out + chars.slice(last).join('');
}

const error = (message: string): PreparedCall => ({ result: `Error during execution: ${message}` });
const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 80)}…` : s);
const notRun = (what: string): PreparedCall =>
  error(
    `${JSON.stringify(clip(what))} is not one of this case's functions; toolgauge runs only those, with literal arguments`,
  );

type Literal = { ok: PyValue } | { stop: PreparedCall };

/** An argument's value: literals as Python builds them, arithmetic as pyast evaluates it; names and the rest stop the call. */
function literalOf(n: Node, source: string): Literal {
  switch (n.k) {
    case 'Constant':
      return { ok: n.value };
    case 'Name':
      return { stop: error(`name '${n.id}' is not defined`) };
    case 'List':
    case 'Tuple':
    case 'Set': {
      const items: PyValue[] = [];
      for (const e of n.elts) {
        const r = literalOf(e, source);
        if ('stop' in r) return r;
        items.push(r.ok);
      }
      return { ok: { t: n.k === 'List' ? 'list' : n.k === 'Tuple' ? 'tuple' : 'set', items } };
    }
    case 'Dict': {
      const entries: Array<[PyValue, PyValue]> = [];
      for (let i = 0; i < n.keys.length; i++) {
        const key = n.keys[i];
        if (!key) return { stop: notRun(source) };
        const k = literalOf(key, source);
        if ('stop' in k) return k;
        const v = literalOf(n.values[i]!, source);
        if ('stop' in v) return v;
        entries.push([k.ok, v.ok]);
      }
      return { ok: { t: 'dict', entries } };
    }
    default: {
      if (n.k === 'UnaryOp' && n.operand.k === 'Name') return literalOf(n.operand, source);
      const r = evaluate(n);
      return 'ok' in r ? { ok: r.ok } : { stop: notRun(source) };
    }
  }
}

/** One call string as the executor's data, or the result to record without running anything. */
export function prepareCall(call: string, scope: CallScope): PreparedCall {
  const text = prefixMethods(call, scope.methodToVar);
  // BFCL's check, on the rewritten text, before anything else.
  let head = text.includes('(') ? text.split('(')[0]! : text;
  if (head.includes('.')) head = head.split('.')[1]!;
  if (REFUSED_NAMES.has(head)) return error(`Function call ${head} is not allowed.`);

  let node: Node;
  try {
    node = parseEval(text);
  } catch (err) {
    if (err instanceof PySyntaxError) return error(`${err.message} (<string>, line 1)`);
    return notRun(call);
  }
  if (node.k !== 'Call') return node.k === 'Name' ? error(`name '${node.id}' is not defined`) : notRun(call);
  const f = node.func;
  if (f.k === 'Name') return error(`name '${f.id}' is not defined`);
  const isMethod = f.k === 'Attribute' && f.value.k === 'Name' && scope.methodToVar.get(f.attr) === f.value.id;
  if (!isMethod) return notRun(call.split('(')[0]!);
  if (!scope.allowed.has(f.attr)) return notRun(f.attr);
  const args: TaggedValue[] = [];
  for (const a of node.args) {
    if (a.k === 'Starred') return notRun(call);
    const v = literalOf(a, call);
    if ('stop' in v) return v.stop;
    args.push(encodeValue(v.ok));
  }
  const kwargs: Array<[string, TaggedValue]> = [];
  for (const kw of node.keywords) {
    if (kw.arg === null) return notRun(call);
    const v = literalOf(kw.value, call);
    if ('stop' in v) return v.stop;
    kwargs.push([kw.arg, encodeValue(v.ok)]);
  }
  return { call: { name: f.attr, args, kwargs } };
}
