// API-Bank's Calculator, including its failures: outputs and exception texts recorded from the reference class
// (api-bank/apis/calculator.py under CPython 3.11), and the formulas it never finishes reported undetermined.
import { describe, expect, it } from 'vitest';
import { pyRepr } from '../../core/pyliteral/index.ts';
import { Calculator } from './apis-services.ts';
import { at } from './api-kit.ts';
import { S, str, Undetermined } from './py.ts';

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
