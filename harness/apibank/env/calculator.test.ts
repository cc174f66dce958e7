// API-Bank's Calculator, including its failures: outputs and exception texts recorded from the reference class
// (api-bank/apis/calculator.py under CPython 3.11), and the formulas it never finishes reported undetermined.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pyRepr } from '../../core/pyliteral/index.ts';
import { Calculator } from './apis-services.ts';
import { at } from './api-kit.ts';
import { calculate, operate } from './calculator.ts';
import { PyExc, S, str, Undetermined } from './py.ts';

const run = (formula: string): [string, string | null] => {
  const r = Calculator.make(undefined, undefined).call({ formula: S(formula) }, []);
  const exc = at(r, 'exception');
  return [pyRepr(at(r, 'output')), exc.t === 'none' ? null : str(exc)];
};

describe('Calculator as the reference class computes it', () => {
  it.each([
    ['(1+2)*3', '9.0', null],
    ['1/0', 'None', 'float division by zero'],
    ['((1+2))', 'None', "')' is not in list"],
    ['2*(3+4)', '14.0', null],
    ['1++2', 'None', "unsupported operand type(s) for +: 'float' and 'str'"],
    ['(1)+', 'None', 'list index out of range'],
    ['10/4', '2.5', null],
    ['7-2-1', '4.0', null],
    ['2*3-4/8', '5.5', null],
    ['1 + 2', '3.0', null],
    ['(1+2', 'None', 'invalid formula'],
    ['12', 'None', 'invalid formula'],
    ['3*(2+(4-1))', 'None', "')' is not in list"],
    ['2**3', 'None', "can't multiply sequence by non-int of type 'float'"],
    ['', 'None', 'invalid formula'],
    ['1+*2', 'None', "can't multiply sequence by non-int of type 'float'"],
    ['0.5*2', 'None', 'invalid formula'],
  ])('%j', (formula, output, exception) => expect(run(formula)).toEqual([output, exception]));

  it('reports undetermined where the reference never returns (a group starting with "-")', () => {
    expect(() => run('-5+3')).toThrow(Undetermined);
    expect(() => run('(-2)')).toThrow(Undetermined);
  });
});

describe('which formulas are undetermined', () => {
  it('scores a long finite formula (10,001 additions) as the reference would finish it', () => {
    expect(run(`1${'+1'.repeat(10_001)}`)).toEqual(['10002.0', null]);
    expect(run(`(1${'+1'.repeat(10_001)})*2`)).toEqual(['20004.0', null]);
    expect(run(`${'(1)+'.repeat(5_000)}1`)).toEqual(['5001.0', null]);
  });

  it('keeps a formula the reference never finishes undetermined, however long', () => {
    expect(() => run(`-5${'+1'.repeat(10_001)}`)).toThrow(Undetermined);
    expect(() => run(`${'1+'.repeat(5_000)}(-2)`)).toThrow(Undetermined);
    // A two-item list whose string doubles at every step (the reference: until memory runs out).
    expect(() => run('+-')).toThrow(Undetermined);
    expect(() => run(`${'1+'.repeat(100)}(+-)`)).toThrow(Undetermined);
  });

  it('agrees with a literal transcription of the reference on random formulas', () => {
    const unit = fc.constantFrom(...'0123456789'.split(''), '1', '2', '+', '-', '*', '/', '(', ')');
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 14 }), (formula) => {
        expect(outcome(() => calculate(S(formula)))).toEqual(outcome(() => transcribed(formula)));
      }),
      { seed: 7, numRuns: 20_000 },
    );
  });
});

type Outcome = string;
function outcome(f: () => unknown): Outcome {
  try {
    const v = f();
    return `value ${typeof v === 'object' ? pyRepr(v as never) : String(v)}`;
  } catch (err) {
    if (err instanceof PyExc) return `raises ${err.describe()}`;
    if (err instanceof Undetermined) return 'undetermined';
    throw err;
  }
}

/**
 * The reference's steps on a Python list, one by one (list slicing included), for formulas that pass validation.
 * A step past (number of '(' and operators) is a run that cannot end — a run that ends takes at most that many
 * (every step that does not loop removes one of them) — and so is a string past 4,096 characters (it doubles).
 */
function transcribed(formula: string): unknown {
  const chars = [...formula];
  const ops = chars.filter((c) => '+-*/'.includes(c)).length;
  const count = (c: string) => chars.filter((x) => x === c).length;
  if (ops === 0 || ops + 1 === chars.length || count('(') !== count(')')) return calculate(S(formula));
  const list: Array<number | string> = [];
  for (const m of formula.matchAll(/\d+|./g)) list.push(/\d/.test(m[0]) ? Number(m[0]) : m[0]);
  let steps = 0;
  const budget = count('(') + ops;
  const step = () => {
    if (++steps > budget) throw new Undetermined('budget');
  };
  const get = (f: Array<number | string>, i: number) => {
    const k = i < 0 ? i + f.length : i;
    if (k < 0 || k >= f.length) throw new PyExc('IndexError', 'list index out of range');
    return f[k]!;
  };
  const index = (f: Array<number | string>, x: string) => {
    const k = f.indexOf(x);
    if (k < 0) throw new PyExc('ValueError', `'${x}' is not in list`);
    return k;
  };
  const assign = (f: Array<number | string>, a: number, b: number, x: number | string) => {
    const norm = (i: number) => (i < 0 ? Math.max(0, i + f.length) : Math.min(i, f.length));
    const s = norm(a);
    f.splice(s, Math.max(s, norm(b)) - s, x);
  };
  const evaluate = (f: Array<number | string>): number | string => {
    while (f.includes('(')) {
      step();
      const l = index(f, '(');
      const r = index(f, ')');
      assign(f, l, r + 1, evaluate(f.slice(l + 1, Math.max(l + 1, r))));
    }
    for (const [p, q] of [
      ['*', '/'],
      ['+', '-'],
    ]) {
      while (f.includes(p!) || f.includes(q!)) {
        step();
        const k =
          f.includes(p!) && f.includes(q!) ? Math.min(index(f, p!), index(f, q!)) : index(f, f.includes(p!) ? p! : q!);
        // The arithmetic and Python's messages are the emulation's own (`operate`); the list handling is transcribed.
        const x = operate(get(f, k - 1), get(f, k), get(f, k + 1));
        if (typeof x === 'string' && x.length > 4096) throw new Undetermined('doubling');
        assign(f, k - 1, k + 2, x);
      }
    }
    return get(f, 0);
  };
  const out = evaluate(list);
  return typeof out === 'number' ? { t: 'float', v: out } : S(out);
}
