// API-Bank's Calculator (apis/ and lv3_apis/ share it): validation, tokenising into floats and operator
// characters, then its own left-to-right evaluation over a Python list, including the list-slice behaviour that
// makes some inputs fail with Python's messages (and some loop forever, which is reported undetermined).
//
// The reference evaluates a token list in place:
//   while '(' in f:  l = f.index('('); r = f.index(')'); f[l:r+1] = [calculate(f[l+1:r])]
//   for p, q in ('*', '/'), ('+', '-'):
//     while p in f or q in f:  k = first index of p or q; f[k-1:k+2] = [operate(f[k-1], f[k], f[k+1])]
//   return f[0]
// Here each loop is one left-to-right pass that makes the same steps (so a formula costs time linear in its
// length), and the one way the reference never returns is recognised exactly, not by a step budget: an operator at
// index 0. There `f[k-1:k+2]` is `f[-1:2]`, which removes nothing once the list has three items (it inserts before
// the last) and rewrites the second item of a two-item list; the operator stays at index 0, the next step computes
// the same operands (or, for two items, from the previous result: numbers reach a fixed point or infinity, strings
// double), and no later step can raise what the first did not — the loop never ends (a list or string growing
// until memory runs out, in the reference). Every other step removes its operator token, and a group's step its
// '(' (docs/apibank-environment.md).
import { asStr, F, raise, S, Undetermined, type V } from './py.ts';

type Item = number | string;

function get(list: Item[], i: number): Item {
  const k = i < 0 ? i + list.length : i;
  if (k < 0 || k >= list.length) raise('IndexError', 'list index out of range');
  return list[k]!;
}
const tname = (x: Item): string => (typeof x === 'number' ? 'float' : 'str');

/** One arithmetic step with Python's errors (exported for the tests' transcription of the reference). */
export function operate(a: Item, op: Item, b: Item): Item {
  if (typeof a === 'number' && typeof b === 'number') {
    if (op === '+') return a + b;
    if (op === '-') return a - b;
    if (op === '*') return a * b;
    if (op === '/') {
      if (b === 0) raise('ZeroDivisionError', 'float division by zero');
      return a / b;
    }
    throw new Error(`Calculator: ${String(op)} is not an operator`); // unreachable: only operator tokens are applied
  }
  if (op === '+') {
    if (typeof a === 'string' && typeof b === 'string') return a + b;
    if (typeof a === 'string') raise('TypeError', `can only concatenate str (not "${tname(b)}") to str`);
    return raise('TypeError', `unsupported operand type(s) for +: '${tname(a)}' and '${tname(b)}'`);
  }
  if (op === '*')
    return raise(
      'TypeError',
      `can't multiply sequence by non-int of type '${typeof a === 'string' ? tname(b) : tname(a)}'`,
    );
  return raise('TypeError', `unsupported operand type(s) for ${String(op)}: '${tname(a)}' and '${tname(b)}'`);
}

/** The reference's evaluation of a token list (the steps above); `list` is not changed. */
function evaluate(list: Item[]): Item {
  return get(reduce(reduce(groups(list), '*', '/'), '+', '-'), 0);
}

/**
 * The '(' loop. Each step replaces the first '(' … first ')' by the value of what lies between; that value is a
 * number or a joined string, never a bracket, so the next step's '(' and ')' both lie after this step's ')'.
 */
function groups(list: Item[]): Item[] {
  const out: Item[] = [];
  let i = 0;
  for (;;) {
    const l = list.indexOf('(', i);
    if (l < 0) return out.concat(list.slice(i));
    const r = list.indexOf(')', i);
    if (r < 0) raise('ValueError', "')' is not in list");
    // f[l+1:r] is empty when ')' comes first: evaluating it raises (`f[0]` of an empty list).
    const value = evaluate(list.slice(l + 1, Math.max(l + 1, r)));
    out.push(...list.slice(i, l), value);
    i = r + 1;
  }
}

/**
 * One operator loop. A step at index k ≥ 1 replaces f[k-1], f[k], f[k+1] by one value — a number or a joined
 * string, never an operator — so the next first operator lies after it: one pass, the finished prefix in `out`.
 */
function reduce(list: Item[], p: string, q: string): Item[] {
  const out: Item[] = [];
  for (let i = 0; i < list.length; i++) {
    const op = list[i]!;
    if (op !== p && op !== q) {
      out.push(op);
      continue;
    }
    if (out.length === 0) {
      // The operator is first in the list (f = list[i:]): the step's operands are f[-1] and f[1]; when they do not
      // raise, the reference repeats this step forever.
      const rest = list.slice(i);
      operate(get(rest, -1), op, get(rest, 1));
      throw new Undetermined('Calculator: the reference loops forever on this formula');
    }
    const left = out.pop()!;
    out.push(operate(left, op, get(list, i + 1)));
    i++;
  }
  return out;
}

/** Calculator.calculate(formula). */
export function calculate(formula: V): V {
  const f = asStr(formula, 'replace').replaceAll(' ', '');
  const chars = [...f];
  const ops = chars.filter((c) => '+-*/'.includes(c)).length;
  const valid =
    chars.length > 0 &&
    chars.every((c) => '0123456789+-*/()'.includes(c)) &&
    chars.filter((c) => c === '(').length === chars.filter((c) => c === ')').length &&
    ops !== 0 &&
    ops + 1 !== chars.length;
  if (!valid) raise('Exception', 'invalid formula');
  const list: Item[] = [];
  let num = '';
  for (const c of chars) {
    if ('0123456789'.includes(c)) num += c;
    else {
      if (num !== '') list.push(Number(num));
      num = '';
      list.push(c);
    }
  }
  if (num !== '') list.push(Number(num));
  const out = evaluate(list);
  return typeof out === 'number' ? F(out) : S(out);
}
