import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../core/config.ts';
import { expectedToolsJson } from './expected-tools.ts';
import { scorers } from './scorers.ts';
import { evalSuite } from './suite.ts';
import { maxMatching, scoreToolCalls } from './tool-calls.ts';
import type { EvalCase, ExpectedToolCall, TaskOutput, ToolCallRecord, ToolCallsMatch } from './types.ts';

const call = (name: string, args: Record<string, unknown> | null, json?: string): ToolCallRecord => ({
  name,
  arguments: args,
  argumentsJson: json ?? JSON.stringify(args),
  result: '',
  error: null,
});

const output = (toolCalls: ToolCallRecord[]): TaskOutput => ({
  output: '',
  answer: '',
  toolCalls,
  messages: [],
  usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  turns: 1,
});

type Mode = Required<ToolCallsMatch>;
const mode = (order: Mode['order'], args: Mode['args'] = 'exact'): Mode => ({ order, args });

const MUL: ExpectedToolCall = { name: 'multiply', arguments: { a: 6, b: 7 } };
const ADD: ExpectedToolCall = { name: 'add', arguments: { a: 42, b: 1 } };
const mul = (a: number, b: number, extra: Record<string, unknown> = {}) => call('multiply', { a, b, ...extra });
const add = (a: number, b: number) => call('add', { a, b });

describe('scorers.toolCalls: hand-derived verdicts per mode', () => {
  const E = [MUL, ADD];
  // [actual calls, strict, any, subset], each a score and the reason (null at 1), derived by hand from the rules in
  // docs/eval.md: strict = longest in-order run / max(n, m); any = one-to-one matches / max(n, m); subset = / n.
  const table: Array<
    [string, ToolCallRecord[], [number, string | null], [number, string | null], [number, string | null]]
  > = [
    ['the expected calls in order', [mul(6, 7), add(42, 1)], [1, null], [1, null], [1, null]],
    [
      'the expected calls swapped',
      [add(42, 1), mul(6, 7)],
      [0.5, 'call 1: expected multiply({"a":6,"b":7}), got add({"a":42,"b":1})'],
      [1, null],
      [1, null],
    ],
    [
      'one extra call',
      [mul(6, 7), add(42, 1), add(1, 1)],
      [2 / 3, 'unexpected call 3: add({"a":1,"b":1}) (2 call(s) expected)'],
      [2 / 3, 'unexpected call 3: add({"a":1,"b":1}) (2 call(s) expected)'],
      [1, null],
    ],
    [
      'a missing call',
      [mul(6, 7)],
      [0.5, 'missing call 2: add({"a":42,"b":1}) (1 call(s) made, 2 expected)'],
      [0.5, 'missing call 2: add({"a":42,"b":1}) (called: multiply)'],
      [0.5, 'missing call 2: add({"a":42,"b":1}) (called: multiply)'],
    ],
    [
      'a wrong argument',
      [mul(6, 5), add(42, 1)],
      [0.5, 'call 1 multiply: b: 5 is not 7 (expected 7, got 5)'],
      [0.5, 'expected call 1 multiply, nearest call 1: b: 5 is not 7 (expected 7, got 5)'],
      [0.5, 'expected call 1 multiply, nearest call 1: b: 5 is not 7 (expected 7, got 5)'],
    ],
    [
      'no call at all',
      [],
      [0, 'missing call 1: multiply({"a":6,"b":7}) (0 call(s) made, 2 expected)'],
      [0, 'missing call 1: multiply({"a":6,"b":7}) (no tool was called)'],
      [0, 'missing call 1: multiply({"a":6,"b":7}) (no tool was called)'],
    ],
  ];
  for (const [what, actual, strict, any, subset] of table) {
    it(`${what}: strict ${strict[0].toFixed(2)}, any ${any[0].toFixed(2)}, subset ${subset[0].toFixed(2)}`, () => {
      for (const [order, want] of [
        ['strict', strict],
        ['any', any],
        ['subset', subset],
      ] as const) {
        const v = scoreToolCalls(E, actual, mode(order));
        expect(v.score, order).toBeCloseTo(want[0], 12);
        expect(v.reason, order).toBe(want[1]);
      }
    });
  }

  it('args exact refuses an argument the expected call lacks; args subset allows it', () => {
    const actual = [mul(6, 7, { round: true }), add(42, 1)];
    expect(scoreToolCalls(E, actual, mode('strict', 'exact'))).toEqual({
      score: 0.5,
      reason: 'call 1 multiply: round: unexpected argument (got true)',
    });
    expect(scoreToolCalls(E, actual, mode('strict', 'subset'))).toEqual({ score: 1, reason: null });
    // A missing expected argument fails under both.
    const missing = [call('multiply', { a: 6 }), add(42, 1)];
    for (const args of ['exact', 'subset'] as const)
      expect(scoreToolCalls(E, missing, mode('any', args)).reason).toBe(
        'expected call 1 multiply, nearest call 1: b: missing (expected 7, got nothing)',
      );
  });

  it('a predicate decides alone; a name-only expected call takes any arguments; per-call rules apply', () => {
    const product: ExpectedToolCall = { name: 'multiply', arguments: (x) => Number(x.a) * Number(x.b) === 42 };
    expect(scoreToolCalls([product], [mul(21, 2, { note: 'x' })], mode('strict')).score).toBe(1);
    expect(scoreToolCalls([product], [mul(6, 6)], mode('strict'))).toEqual({
      score: 0,
      reason: `call 1 multiply: the arguments {"a":6,"b":6} fail the expected arguments' test`,
    });
    const throws: ExpectedToolCall = {
      name: 'multiply',
      arguments: () => {
        throw new Error('no b');
      },
    };
    expect(scoreToolCalls([throws], [mul(1, 1)], mode('strict')).reason).toBe(
      "call 1 multiply: the expected arguments' test threw: no b",
    );
    expect(scoreToolCalls([{ name: 'add' }], [add(1, 2)], mode('strict')).score).toBe(1);
    const city: ExpectedToolCall = {
      name: 'weather',
      arguments: { city: 'Paris' },
      rules: { city: { casefold: true } },
    };
    expect(scoreToolCalls([city], [call('weather', { city: 'PARIS' })], mode('strict')).score).toBe(1);
    expect(scoreToolCalls([{ ...city, rules: {} }], [call('weather', { city: 'PARIS' })], mode('strict')).score).toBe(
      0,
    );
  });

  it('arguments that are no JSON object match only a name-only expected call', () => {
    const bad = call('multiply', null, '{"a": 6,');
    expect(scoreToolCalls([MUL], [bad], mode('strict')).reason).toBe(
      'call 1 multiply: arguments are not a JSON object (got "{\\"a\\": 6,")',
    );
    expect(scoreToolCalls([{ name: 'multiply' }], [bad], mode('strict')).score).toBe(1);
  });

  it('an empty expectedTools expects no call: strict and any score 0 on any call, subset 1', () => {
    expect(scoreToolCalls([], [], mode('strict')).score).toBe(1);
    expect(scoreToolCalls([], [add(1, 1)], mode('strict'))).toEqual({
      score: 0,
      reason: 'unexpected call 1: add({"a":1,"b":1}) (0 call(s) expected)',
    });
    expect(scoreToolCalls([], [add(1, 1)], mode('any')).score).toBe(0);
    expect(scoreToolCalls([], [add(1, 1)], mode('subset')).score).toBe(1);
  });
});

describe('scorers.toolCalls as a scorer', () => {
  const score = (s: ReturnType<typeof scorers.toolCalls>, c: Partial<EvalCase>, calls: ToolCallRecord[]) =>
    s.score({ input: 'q', expected: undefined, output: output(calls), case: { input: 'q', ...c, id: 'c' } });

  it('a case without expectedTools is unscored, not a pass', () => {
    expect(score(scorers.toolCalls(), {}, [mul(6, 7)])).toEqual({
      score: null,
      reason: 'the case has no expectedTools',
    });
  });

  it("options set the modes and the name; a case's expectedToolsMatch overrides them for that case", () => {
    const swapped = [add(42, 1), mul(6, 7)];
    const strict = scorers.toolCalls({ name: 'calls in order' });
    expect(strict.name).toBe('calls_in_order');
    expect(scorers.toolCalls().name).toBe('tool_calls');
    expect(score(strict, { expectedTools: [MUL, ADD] }, swapped)).toMatchObject({ score: 0.5 });
    expect(score(strict, { expectedTools: [MUL, ADD], expectedToolsMatch: { order: 'any' } }, swapped)).toEqual({
      score: 1,
    });
    const loose = scorers.toolCalls({ order: 'subset', args: 'subset' });
    expect(score(loose, { expectedTools: [MUL] }, [add(1, 1), mul(6, 7, { round: true })])).toEqual({ score: 1 });
    expect(
      score(loose, { expectedTools: [MUL], expectedToolsMatch: { args: 'exact' } }, [mul(6, 7, { round: true })]),
    ).toMatchObject({ score: 0 });
  });

  it('a malformed expectedTools or mode is the eval author’s error, naming the field', () => {
    const s = scorers.toolCalls();
    expect(() => score(s, { expectedTools: [{ nmae: 'multiply' }] as never }, [])).toThrow(
      /^the case's expectedTools\[0\]\.name: /,
    );
    expect(() => score(s, { expectedTools: [{ name: 'multiply', arguments: 3 }] as never }, [])).toThrow(
      /^the case's expectedTools\[0\]\.arguments: expected an object of arguments or a function/,
    );
    expect(() => score(s, { expectedTools: [MUL], expectedToolsMatch: { order: 'sorted' } as never }, [])).toThrow(
      /^the case's expectedToolsMatch\.order: /,
    );
    expect(() => scorers.toolCalls({ args: 'loose' } as never)).toThrow(/^scorers\.toolCalls options\.args: /);
  });

  it('the trace holds the expected calls as JSON, a predicate as "(function)"', () => {
    expect(expectedToolsJson([MUL, { name: 'add', arguments: () => true, rules: { a: { tolerance: 1 } } }])).toEqual([
      { name: 'multiply', arguments: { a: 6, b: 7 } },
      { name: 'add', arguments: '(function)', rules: { a: { tolerance: 1 } } },
    ]);
  });

  it("an eval case's trace file and transcript carry its expected calls", async () => {
    const def = evalSuite('traced', {
      data: () => [{ id: 'a', input: 'q', expectedTools: [MUL, { name: 'add', arguments: () => true }] }],
      task: () => output([mul(6, 7)]),
      scorers: [scorers.toolCalls()],
    });
    const run = readConfig({});
    const settings = def.settings({}, run);
    const [inst] = (await def.load(run, settings)).instances;
    const ctx = {
      run,
      settings,
      trial: 0,
      outDir: '/nonexistent',
      client: () => ({}) as never,
      sampling: () => ({}) as never,
      sandbox: () => ({}) as never,
      tracePath: () => 'traces/a.json',
    };
    const done = await def.run(inst!, ctx);
    const stored = [
      { name: 'multiply', arguments: { a: 6, b: 7 } },
      { name: 'add', arguments: '(function)' },
    ];
    expect((done.files!['traces/a.json'] as { expectedTools: unknown }).expectedTools).toEqual(stored);
    expect(done.transcript).toContain(`expected tools: ${JSON.stringify(stored)}`);
    expect(done.meta.scores?.tool_calls).toBe(0.5);
  });
});

describe('scorers.toolCalls: properties', () => {
  // Few names and values, so that matches, near misses and repeats all occur.
  const actualCall = fc
    .tuple(fc.constantFrom('f', 'g'), fc.integer({ min: 0, max: 2 }))
    .map(([name, x]) => call(name, { x }));
  const expectedCall = fc.oneof(
    { weight: 4, arbitrary: actualCall.map((c): ExpectedToolCall => ({ name: c.name, arguments: c.arguments! })) },
    { weight: 1, arbitrary: fc.constantFrom('f', 'g').map((name): ExpectedToolCall => ({ name })) },
  );
  const calls = fc.array(actualCall, { maxLength: 5 });
  const expecteds = fc.array(expectedCall, { maxLength: 4 });
  const args = fc.constantFrom<Mode['args']>('exact', 'subset');

  it('any is invariant under a permutation of the actual calls', () => {
    fc.assert(
      fc.property(
        expecteds,
        calls.chain((a) => fc.tuple(fc.constant(a), fc.shuffledSubarray(a, { minLength: a.length }))),
        args,
        (e, [a, permuted], am) => {
          expect(scoreToolCalls(e, permuted, mode('any', am)).score).toBeCloseTo(
            scoreToolCalls(e, a, mode('any', am)).score,
            12,
          );
        },
      ),
    );
  });

  it('strict ≤ any ≤ subset: a call list that passes strict passes any, and one that passes any passes subset', () => {
    fc.assert(
      fc.property(expecteds, calls, args, (e, a, am) => {
        const s = scoreToolCalls(e, a, mode('strict', am)).score;
        const y = scoreToolCalls(e, a, mode('any', am)).score;
        const b = scoreToolCalls(e, a, mode('subset', am)).score;
        expect(s).toBeLessThanOrEqual(y + 1e-12);
        expect(y).toBeLessThanOrEqual(b + 1e-12);
      }),
    );
  });

  it('an extra call anywhere never lowers subset', () => {
    fc.assert(
      fc.property(expecteds, calls, actualCall, fc.nat(), args, (e, a, extra, at, am) => {
        const more = [...a];
        more.splice(at % (a.length + 1), 0, extra);
        expect(scoreToolCalls(e, more, mode('subset', am)).score).toBeGreaterThanOrEqual(
          scoreToolCalls(e, a, mode('subset', am)).score,
        );
      }),
    );
  });

  it('the calls an expected list describes exactly (its own arguments) pass every mode; any failure has a reason', () => {
    fc.assert(
      fc.property(fc.array(actualCall, { maxLength: 4 }), calls, args, (made, other, am) => {
        const e = made.map((c): ExpectedToolCall => ({ name: c.name, arguments: { ...c.arguments } }));
        for (const order of ['strict', 'any', 'subset'] as const)
          expect(scoreToolCalls(e, made, mode(order, am))).toEqual({ score: 1, reason: null });
        for (const order of ['strict', 'any', 'subset'] as const) {
          const v = scoreToolCalls(e, other, mode(order, am));
          expect(v.reason === null).toBe(v.score === 1);
        }
      }),
    );
  });

  it('the one-to-one matching is as large as a brute-force search finds', () => {
    const matrix = fc
      .tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 5 }))
      .chain(([n, m]) =>
        fc.tuple(
          fc.array(fc.array(fc.boolean(), { minLength: m, maxLength: m }), { minLength: n, maxLength: n }),
          fc.constant(m),
        ),
      );
    // Every assignment of each row to an unused column or to nothing, counting the assigned rows.
    const brute = (ok: boolean[][], m: number, i = 0, used = new Set<number>()): number => {
      if (i === ok.length) return 0;
      let best = brute(ok, m, i + 1, used);
      for (let j = 0; j < m; j++)
        if (ok[i]![j] && !used.has(j)) best = Math.max(best, 1 + brute(ok, m, i + 1, new Set([...used, j])));
      return best;
    };
    fc.assert(
      fc.property(matrix, ([ok, m]) => {
        const of = maxMatching(ok, m);
        const cols = of.filter((j) => j >= 0);
        expect(new Set(cols).size).toBe(cols.length);
        of.forEach((j, i) => {
          if (j >= 0) expect(ok[i]![j]).toBe(true);
        });
        expect(cols.length).toBe(brute(ok, m));
      }),
    );
  });
});
