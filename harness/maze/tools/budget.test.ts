import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPR_BUDGET, evalExpr, ExprError, parseExpr, scopeOf } from './expr.ts';
import { PURE_FUNCTIONS } from './functions.ts';
import { builtinTools } from './index.ts';
import { BUILTIN_TOOLS_DIR, libraryFiles, loadToolFiles } from './library.ts';
import { tempDir } from '../../../tests/helpers/temp-dirs.ts';

// The budgets of Maze's expression language (docs/maze-tools.md, "Budgets"): steps, sizes, nesting. Each hostile
// expression ends in an ExprError — a tool error for the call — never a hang, an exhausted heap or a native
// RangeError. The timeouts only make a hang fail the test.

const ev = (src: string) => evalExpr(parseExpr(src), scopeOf({}), PURE_FUNCTIONS);
const problem = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    expect(err, String(err)).toBeInstanceOf(ExprError);
    return (err as Error).message;
  }
  throw new Error('no error');
};

let n = 0;
/** A one-tool library file whose tool returns `value` (an expression), with the given functions. */
function toolWith(value: string, functions = ''): string {
  const dir = tempDir(`maze-budget-${n++}`);
  const f = join(dir, 'spin.yaml');
  writeFileSync(
    f,
    `version: 1
domain: books
${functions ? `functions:\n${functions}\n` : ''}tools:
  - name: get_spin
    category: source
    description: Spins.
    parameters: { type: object, properties: { n: { type: integer, description: N } }, required: [n] }
    output: { type: object, properties: { v: { description: V } }, required: [v] }
    run:
      - return: { v: ${JSON.stringify(value)} }
`,
  );
  return f;
}
const callSpin = (file: string, args: Record<string, unknown> = { n: 0 }) => {
  const [tool] = loadToolFiles([...libraryFiles(BUILTIN_TOOLS_DIR), file]).slice(builtinTools().length);
  return tool!.run(args, { history: [] });
};

describe('the expression budget', () => {
  it('an O(n²) expression stops at the step budget', { timeout: 20_000 }, () => {
    expect(problem(() => ev('map(range(0, 100000), i => map(range(0, 100000), j => i * j))'))).toMatch(
      `over the budget of ${EXPR_BUDGET.steps} evaluation steps`,
    );
    // work a function does on its arguments counts too: a linear scan inside a linear map
    expect(problem(() => ev('count(range(0, 100000), i => includes(range(0, 100000), i))'))).toMatch(/over the budget/);
  });

  it('a range, a padded string, a text or a concatenation over the size limit is refused before it is made', () => {
    expect(problem(() => ev('map(range(0, 3e8), i => i)'))).toMatch(
      `range: a length of 300000000 is over the limit of ${EXPR_BUDGET.size}`,
    );
    expect(problem(() => ev("pad_start('x', 900000000)"))).toMatch('pad_start: a width of 900000000');
    expect(problem(() => ev("pad_start('x', 1e300)"))).toMatch('pad_start: a width');
    expect(problem(() => ev('str(range(0, 30000))'))).toMatch(`over the limit of ${EXPR_BUDGET.size}`);
    expect(problem(() => ev('concat(range(0, 90000), range(0, 90000))'))).toMatch('concat: a list');
    // a date past the engine's range is a refusal, not a RangeError
    expect(problem(() => ev('date_from_day(1e300)'))).toMatch('date_from_day:');
  });

  it('a string doubled by itself stops at the size limit', () => {
    const fns = { ...PURE_FUNCTIONS };
    const body = parseExpr('n == 0 ? s : twice(s + s, n - 1)');
    fns.twice = (s, k) => evalExpr(body, scopeOf({ s, n: k }), fns);
    expect(problem(() => evalExpr(parseExpr("twice('ab', 60)"), scopeOf({}), fns))).toMatch(
      "the text of '+' of 131072 is over the limit",
    );
  });

  it('deep syntax is refused when parsed, before any stack is at risk', () => {
    expect(problem(() => parseExpr(`${'('.repeat(20_000)}1${')'.repeat(20_000)}`))).toMatch(
      `nested deeper than ${EXPR_BUDGET.parseDepth} levels`,
    );
    expect(problem(() => parseExpr(`${'!'.repeat(20_000)}1`))).toMatch('nested deeper');
    expect(problem(() => parseExpr(Array(20_000).fill('2').join(' ** ')))).toMatch('nested deeper');
    expect(ev(`${'('.repeat(50)}1${')'.repeat(50)}`)).toBe(1);
  });

  it('lists and objects are not operands of arithmetic or orderings (their text would be unbounded)', () => {
    expect(problem(() => ev('[1] + [2]'))).toMatch("'+' takes numbers or text, not a list");
    expect(problem(() => ev('{a: 1} < 2'))).toMatch('not an object');
    expect(ev("'a' + 1")).toBe('a1');
  });
});

describe("a tool over its budget is the call's error", () => {
  it('self-recursion: a tool error naming the nesting, not a stack overflow', () => {
    expect(callSpin(toolWith('spin(args.n)', '  spin: { params: [n], body: "spin(n + 1)" }'))).toEqual({
      error: `tool get_spin could not run: nested deeper than ${EXPR_BUDGET.depth} evaluations (a function that calls itself without end?)`,
    });
    // recursion through a list function's lambda is nested as deep
    expect(
      callSpin(toolWith('spin(args.n)', '  spin: { params: [n], body: "map([n], x => spin(x + 1))" }')).error,
    ).toMatch('nested deeper than');
  });

  it('exponential recursion: a tool error at the step budget', { timeout: 20_000 }, () => {
    const fib = '  fib: { params: [n], body: "n < 2 ? n : fib(n - 1) + fib(n - 2)" }';
    expect(callSpin(toolWith('fib(args.n)', fib), { n: 10 })).toEqual({ v: 55 });
    expect(callSpin(toolWith('fib(args.n)', fib), { n: 60 })).toEqual({
      error: `tool get_spin could not run: over the budget of ${EXPR_BUDGET.steps} evaluation steps`,
    });
  });

  it('an argument that asks for a huge value: a tool error', () => {
    expect(callSpin(toolWith('len(pad_start(str(args.n), args.n))'), { n: 900_000_000 })).toEqual({
      error: `tool get_spin could not run: pad_start: a width of 900000000 is over the limit of ${EXPR_BUDGET.size}`,
    });
  });
});
