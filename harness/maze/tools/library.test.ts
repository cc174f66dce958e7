import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { corruptionsOf } from '../corrupt.ts';
import { evalExpr, parseExpr, scopeOf } from './expr.ts';
import { activeTools, callTool, getTool, builtinTools, useToolLibrary } from './index.ts';
import { BUILTIN_TOOLS_DIR, libraryFiles, loadToolFiles } from './library.ts';
import { tempDir } from '../../../tests/helpers/temp-dirs.ts';

const FIXTURES = new URL('../../../tests/fixtures/maze-tools/', import.meta.url).pathname;
let n = 0;
function tempFile(name: string, text: string): string {
  const dir = tempDir(`maze-lib-${n++}`);
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

/** A valid one-tool file with one field replaced, as YAML text. */
function toolFile(over: Record<string, unknown> = {}, extra = ''): string {
  const tool = {
    name: 'get_shelf',
    category: 'source',
    description: 'Shelf of a book.',
    parameters: {
      type: 'object',
      properties: { isbn: { type: 'string', description: 'ISBN' } },
      required: ['isbn'],
      additionalProperties: false,
    },
    output: {
      type: 'object',
      properties: { isbn: { type: 'string', description: 'ISBN' }, shelf: { type: 'integer', description: 'Shelf' } },
      required: ['isbn', 'shelf'],
      additionalProperties: false,
    },
    checks: { non_negative: ['shelf'], echo: { isbn: 'isbn' } },
    entity: { arg: 'isbn', values: "['a', 'b']" },
    run: [{ return: { isbn: 'args.isbn', shelf: 'len(args.isbn) % 7' } }],
    ...over,
  };
  return `version: 1\ndomain: books\n${extra}tools:\n  - ${JSON.stringify(tool)}\n`;
}
const loadText = (text: string, name = 'shelf.yaml') =>
  loadToolFiles([...libraryFiles(BUILTIN_TOOLS_DIR), tempFile(name, text)]).slice(builtinTools().length);

describe('the expression form', () => {
  // An independent oracle: random arithmetic trees, printed fully parenthesised, evaluated by the test itself.
  type T = number | { op: '+' | '-' | '*'; a: T; b: T };
  const tree: fc.Arbitrary<T> = fc.letrec<{ t: T }>((tie) => ({
    t: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.integer({ min: 0, max: 99 }),
      fc.record({ op: fc.constantFrom('+', '-', '*'), a: tie('t'), b: tie('t') }) as fc.Arbitrary<T>,
    ),
  })).t;
  const show = (t: T): string => (typeof t === 'number' ? String(t) : `(${show(t.a)} ${t.op} ${show(t.b)})`);
  const value = (t: T): number =>
    typeof t === 'number'
      ? t
      : t.op === '+'
        ? value(t.a) + value(t.b)
        : t.op === '-'
          ? value(t.a) - value(t.b)
          : value(t.a) * value(t.b);

  it('evaluates any parenthesised arithmetic as written', () => {
    fc.assert(fc.property(tree, (t) => evalExpr(parseExpr(show(t)), scopeOf({}), {}) === value(t)));
  });

  it('gives * and / precedence over + and -, ** over both, and reads left to right', () => {
    const ev = (s: string) => evalExpr(parseExpr(s), scopeOf({ x: 3 }), {});
    expect(ev('1 + 2 * 3 - 4 / 2')).toBe(5);
    expect(ev('2 * x ** 2')).toBe(18);
    expect(ev('10 - 3 - 2')).toBe(5);
    expect(ev("x > 2 ? 'big' : 'small'")).toBe('big');
  });

  it('reaches no JavaScript: unknown names and functions, prototype fields and constructors are refused', () => {
    const ev = (s: string) => () => evalExpr(parseExpr(s), scopeOf({ o: { a: 1 } }), {});
    expect(ev('process')).toThrow(/unknown name 'process'/);
    expect(ev('eval("1")')).toThrow(/unknown function 'eval'/);
    expect(ev('o.__proto__')).toThrow(/not readable/);
    expect(ev("o['constructor']")).toThrow(/not readable/);
    expect(evalExpr(parseExpr('o.toString'), scopeOf({ o: { a: 1 } }), {})).toBeUndefined();
  });
});

describe('declarative tool library files', () => {
  afterEach(() => {
    useToolLibrary([]);
  });

  it('the built-in library is the 91 tools of cases/maze/tools in file order, every one with a behaviour', () => {
    expect(libraryFiles(BUILTIN_TOOLS_DIR).map((f) => f.slice(BUILTIN_TOOLS_DIR.length))).toEqual([
      '00-world.yaml',
      '01-markets.yaml',
      '02-fx.yaml',
      '03-weather.yaml',
      '04-travel.yaml',
      '05-calendar.yaml',
      '06-banking.yaml',
      '07-retail.yaml',
      '08-shipping.yaml',
      '09-messaging.yaml',
      '10-math.yaml',
      '11-crypto.yaml',
      '12-geo.yaml',
    ]);
    expect(builtinTools()).toHaveLength(91);
    expect(builtinTools()[0]!.name).toBe('get_stock_quote');
    // figures worked out by hand: float sums rounded to cents, a leap day, the US list of holidays, an unknown country
    expect(callTool('sum_values', { a: 0.1, b: 0.2 }, []).result).toEqual({ sum: 0.3 });
    expect(callTool('add_days', { start_date: '2024-02-28', days: 2 }, []).result).toEqual({ date: '2024-03-01' });
    expect(callTool('get_public_holidays', { country: 'us', year: 2025 }, []).result).toMatchObject({
      country: 'US',
      count: 9,
    });
    expect(callTool('get_shipping_zone', { country: 'xx' }, []).result).toEqual({ error: 'no shipping to "xx"' });
  });

  it("a user's file adds a domain: tables, functions, `like`, and tools that run through callTool", () => {
    const tools = useToolLibrary([join(FIXTURES, 'books.yaml')]);
    expect(tools).toHaveLength(builtinTools().length + 2);
    expect(
      activeTools()
        .slice(builtinTools().length)
        .map((t) => [t.name, t.domain, t.substituteSet]),
    ).toEqual([
      ['get_book_price', 'books', 'book_price'],
      ['bookshop_catalogue_lookup', 'books', 'book_price'],
    ]);
    const a = callTool('get_book_price', { isbn: ' 978-1-00-000002-8 ' }, []);
    expect(a).toEqual({ kind: 'clean', result: { isbn: '978-1-00-000002-8', title: 'Salt and Cedar', price: 24 } });
    expect(callTool('bookshop_catalogue_lookup', { isbn: '978-1-00-000002-8' }, []).result).toEqual(a.result);
    expect(callTool('get_book_price', { isbn: 'nope' }, [])).toEqual({
      kind: 'invalid_use',
      result: { error: 'unknown ISBN "nope"' },
    });
    expect(callTool('get_book_price', { isbn: 1 }, []).kind).toBe('invalid_arguments');
    expect(getTool('get_book_price')!.entity!.values()).toEqual([
      '978-1-00-000001-1',
      '978-1-00-000002-8',
      '978-1-00-000003-5',
    ]);
    useToolLibrary([]);
    expect(getTool('get_book_price')).toBeUndefined();
  });

  it("a user's tool may copy a built-in tool (`like`) and call the built-in files' functions", () => {
    const [mine, viaFn] = loadText(
      `version: 1\ndomain: markets\ntools:\n  - {name: my_quote, like: get_stock_quote, description: "Mine."}\n  - ${JSON.stringify({ name: 'sector_of', category: 'source', description: 'Sector.', parameters: { type: 'object', properties: { t: { type: 'string' } } }, output: { type: 'object', properties: { s: { type: 'string' } } }, run: [{ return: { s: 'company(args.t).sector' } }] })}\n`,
    );
    const args = { ticker: 'GLYX', date: '2025-03-03' };
    expect(mine!.run(args, { history: [] })).toEqual(getTool('get_stock_quote')!.run(args, { history: [] }));
    expect(mine!.domain).toBe('markets');
    expect(viaFn!.run({ t: 'glyx' }, { history: [] })).toEqual({ s: 'technology' });
  });

  it('tools read the run history: a state function and the history list', () => {
    const [t] = loadText(
      toolFile({
        run: [
          { let: { k: "count(history, h => h.name == 'get_shelf')" } },
          { return: { isbn: 'args.isbn', shelf: 'k + prior_same()' } },
        ],
      }),
    );
    const hist = [
      { name: 'get_shelf', args: { isbn: 'x' }, result: {} },
      { name: 'get_shelf', args: { isbn: 'y' }, result: {} },
    ];
    expect(t!.run({ isbn: 'x' }, { history: hist })).toEqual({ isbn: 'x', shelf: 3 });
  });

  it('failure_modes narrows the corruptions a tool takes, and may name only what its checks catch', () => {
    const [all] = loadText(toolFile());
    const [narrow] = loadText(toolFile({ failure_modes: ['entity_swap'] }));
    const clean = { isbn: 'abc', shelf: 3 };
    expect(corruptionsOf('negative_value', all!, { isbn: 'abc' }, clean, [])).not.toEqual([]);
    expect(corruptionsOf('negative_value', narrow!, { isbn: 'abc' }, clean, [])).toEqual([]);
    expect(() => loadText(toolFile({ failure_modes: ['sum_mismatch'] }))).toThrow(
      /shelf\.yaml: field tools\[0\] \(get_shelf\)\.failure_modes: 'sum_mismatch' needs a check/,
    );
  });

  it('a bad file is one line naming the file, the tool and the field', () => {
    const cases: Array<[string, RegExp]> = [
      [
        toolFile({ run: [{ return: { isbn: 'args.isbn', shelf: 'shelf_of(args.isbn)' } }] }),
        /shelf\.yaml: field tools\[0\] \(get_shelf\)\.run\[0\]\.return\.shelf: unknown function 'shelf_of'/,
      ],
      [
        toolFile({ run: [{ return: { isbn: 'args.isbn', shelf: '1 +' } }] }),
        /tools\[0\] \(get_shelf\)\.run\[0\]\.return\.shelf: unexpected end of expression/,
      ],
      [toolFile({ run: [{ let: { x: '1' } }] }), /tools\[0\] \(get_shelf\)\.run: the last step must be a return/],
      [toolFile({ run: [{ fail_if: 'true' }] }), /tools\[0\] \(get_shelf\)\.run\[0\]/],
      [
        toolFile({ checks: { echo: { isbn: 'code' } } }),
        /tools\[0\] \(get_shelf\)\.checks\.echo\.isbn: 'code' is not a parameter/,
      ],
      [toolFile({ checks: { non_negative: ['floor'] } }), /checks\.non_negative: 'floor' is not a field of the output/],
      [toolFile({ category: 'sink' }), /tools\[0\] \(get_shelf\)\.category: /],
      [
        toolFile({ name: 'get_stock_quote' }),
        /tools\[0\] \(get_stock_quote\)\.name: tool 'get_stock_quote' is already defined in 01-markets\.yaml/,
      ],
      [toolFile({ like: 'no_such_tool' }), /tools\[0\] \(get_shelf\)\.like: no earlier tool 'no_such_tool'/],
      [
        toolFile({ parameters: { type: 'object', properties: { isbn: { type: 'strin' } } } }),
        /tools\[0\] \(get_shelf\)\.parameters: not a valid JSON Schema/,
      ],
      // strict mode: an unknown keyword, a keyword without the type it applies to, a required field not defined
      [
        toolFile({ parameters: { type: 'object', properties: { isbn: { type: 'string', optional: true } } } }),
        /tools\[0\] \(get_shelf\)\.parameters: not a valid JSON Schema: strict mode: unknown keyword: "optional"$/,
      ],
      [
        toolFile({ output: { type: 'object', properties: { isbn: { pattern: '^9' }, shelf: { type: 'integer' } } } }),
        /tools\[0\] \(get_shelf\)\.output: not a valid JSON Schema: strict mode: missing type "string" for keyword "pattern" at "#\/properties\/isbn" \(strictTypes\)$/,
      ],
      [
        toolFile({ parameters: { type: 'object', properties: { isbn: { type: 'string' } }, required: ['code'] } }),
        /\.parameters: not a valid JSON Schema: strict mode: required property "code" is not defined at "#" \(strictRequired\)$/,
      ],
      [
        toolFile({ parameters: { type: 'object', properties: { isbn: { type: 'string', pattern: '\\-' } } } }),
        /\.parameters: not a valid JSON Schema: Invalid regular expression: \/\\-\/u: Invalid escape$/,
      ],
      [
        toolFile({ parameters: { type: 'object', properties: { isbn: { type: 'string', enum: ['a', 'a'] } } } }),
        /\.parameters: not a valid JSON Schema: schema is invalid: data\/properties\/isbn\/enum must NOT have duplicate items/,
      ],
      [
        toolFile({}, 'functions:\n  company: {params: [x], body: "x"}\n'),
        /field functions\.company: function 'company' is already defined/,
      ],
      ['version: 1\ntools: [\n', /shelf\.yaml: not valid YAML/],
      ['version: 2\n', /shelf\.yaml: field version: /],
    ];
    for (const [text, want] of cases) {
      let message = '';
      try {
        loadText(text);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, text).toMatch(want);
      expect(message.split('\n')).toHaveLength(1);
    }
  });

  it('a behaviour that fails at run time is an { error } result for the agent, not a crash', () => {
    const [t] = loadText(toolFile({ run: [{ return: { isbn: 'args.isbn', shelf: 'args.isbn.nothing.deeper' } }] }));
    expect(t!.run({ isbn: 'x' }, { history: [] })).toEqual({
      error: "tool get_shelf could not run: cannot read 'deeper' of undefined",
    });
  });
});
