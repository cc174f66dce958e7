// API-Bank's Calculator (apis/ and lv3_apis/ share it): validation, tokenising into floats and operator
// characters, then its own left-to-right evaluation over a Python list, including the list-slice behaviour that
// makes some inputs fail with Python's messages (and a leading '-' loop forever, which is reported undetermined).
import { asStr, F, raise, S, Undetermined, type V } from './py.ts';

type Item = number | string;
const MAX_STEPS = 10_000;

function index(list: Item[], x: string): number {
  const k = list.indexOf(x);
  if (k < 0) raise('ValueError', `'${x}' is not in list`);
  return k;
}
function get(list: Item[], i: number): Item {
  const k = i < 0 ? i + list.length : i;
  if (k < 0 || k >= list.length) raise('IndexError', 'list index out of range');
  return list[k]!;
}
/** list[a:b] = [x] */
function assignSlice(list: Item[], a: number, b: number, x: Item): void {
  const n = list.length;
  const norm = (i: number): number => (i < 0 ? Math.max(0, i + n) : Math.min(i, n));
  const s = norm(a);
  const e = Math.max(s, norm(b));
  list.splice(s, e - s, x);
}
const tname = (x: Item): string => (typeof x === 'number' ? 'float' : 'str');

function operate(a: Item, op: Item, b: Item): Item {
  if (typeof a === 'number' && typeof b === 'number') {
    if (op === '+') return a + b;
    if (op === '-') return a - b;
    if (op === '*') return a * b;
    if (op === '/') {
      if (b === 0) raise('ZeroDivisionError', 'float division by zero');
      return a / b;
    }
    throw new Error(`Calculator: ${String(op)} is not an operator`); // unreachable: index() only finds operators
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

function evaluate(list: Item[], budget: { n: number }): Item {
  const tick = (): void => {
    if (++budget.n > MAX_STEPS) throw new Undetermined('Calculator: the reference loops forever on this formula');
  };
  while (list.includes('(')) {
    tick();
    const l = index(list, '(');
    const r = index(list, ')');
    const inner = list.slice(l + 1, Math.max(l + 1, r));
    assignSlice(list, l, r + 1, evaluate(inner, budget));
  }
  for (const [p, q] of [
    ['*', '/'],
    ['+', '-'],
  ] as const) {
    while (list.includes(p) || list.includes(q)) {
      tick();
      let k: number;
      if (list.includes(p) && list.includes(q)) k = Math.min(index(list, p), index(list, q));
      else k = list.includes(p) ? index(list, p) : index(list, q);
      assignSlice(list, k - 1, k + 2, operate(get(list, k - 1), get(list, k), get(list, k + 1)));
    }
  }
  return get(list, 0);
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
  const out = evaluate(list, { n: 0 });
  return typeof out === 'number' ? F(out) : S(out);
}
