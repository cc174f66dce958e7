import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callsFor, nearMissArb, SCHEMA_TYPED, textArb, toolsFromCalls } from './arbitraries.ts';
import { tryLiteralEval } from '../core/pyliteral/index.ts';
import { gemmaValue } from './families/gemma4.ts';
import {
  BUDGET_NOTE,
  FAMILIES,
  parseToolCalls,
  parseWork,
  renderToolCalls,
  type Family,
  type ParseResult,
} from './index.ts';
import { cannotBeLiteral } from './xmlvalue.ts';

const RUNS = 150;

/** A well-formed result; 'parser error' means an internal throw was swallowed by the safety net. */
function wellFormed(r: ParseResult): void {
  // Checked in plain code, one expect per result: these run on tens of thousands of results, and each expect() costs
  // far more than the check itself.
  const problems: string[] = [];
  if (r.notes.includes('parser error')) problems.push("notes hold 'parser error'");
  if (!['strict', 'lenient', 'none'].includes(r.tier)) problems.push(`tier ${JSON.stringify(r.tier)}`);
  if (!Array.isArray(r.calls)) problems.push('calls is not an array');
  else {
    for (const c of r.calls) {
      if (typeof c.name !== 'string') problems.push(`a call's name is ${typeof c.name}`);
      if (!(c.arguments !== null && typeof c.arguments === 'object' && !Array.isArray(c.arguments)))
        problems.push(`a call's arguments are not an object`);
    }
    if ((r.tier === 'none') !== (r.calls.length === 0)) problems.push(`tier ${r.tier} with ${r.calls.length} calls`);
    if (r.calls.length > 0 && r.attempted !== true) problems.push('calls found but attempted is not true');
  }
  if (problems.length > 0) expect(problems, JSON.stringify(r)).toEqual([]);
}

describe('round trip: render then strict-parse gives the calls back', () => {
  for (const family of FAMILIES) {
    it(family, () => {
      fc.assert(
        fc.property(callsFor(family), (calls) => {
          const text = renderToolCalls(calls, family);
          const tools = SCHEMA_TYPED.includes(family) ? toolsFromCalls(calls) : undefined;
          const named = parseToolCalls(text, { tier: 'strict', format: family, tools });
          expect(named.calls).toEqual(calls);
          const auto = parseToolCalls(text, { tier: 'strict', format: 'auto', tools });
          expect(auto.calls).toEqual(calls);
          if (calls.length > 0) {
            expect(named.format).toBe(family);
            expect(auto.format).toBe(family);
          }
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('round trip with keys that are object-prototype names', () => {
  for (const family of FAMILIES) {
    it(family, () => {
      const args: Record<string, unknown> = {};
      for (const k of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        Object.defineProperty(args, k, {
          value: { __proto__x: 1, k },
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      const calls = [{ name: 'f', arguments: args }];
      const tools = SCHEMA_TYPED.includes(family) ? toolsFromCalls(calls) : undefined;
      const r = parseToolCalls(renderToolCalls(calls, family), { tier: 'strict', format: family, tools });
      expect(r.calls).toEqual(calls);
      expect(Object.keys(r.calls[0]!.arguments)).toEqual(['__proto__', 'constructor', 'toString', 'hasOwnProperty']);
      expect(Object.getPrototypeOf(r.calls[0]!.arguments)).toBe(Object.prototype);
    });
  }
});

/** Rendered calls with prose, end tokens or damage around them: inputs near the strict tier's boundary. */
function variants(family: Family) {
  return fc
    .tuple(
      callsFor(family),
      textArb,
      fc.constantFrom('', '<|eot_id|>', '\n', '</s>'),
      fc.nat(),
      fc.constantFrom('clean', 'prefix', 'suffix', 'cut', 'dup'),
    )
    .map(([calls, prose, end, k, how]) => {
      const t = renderToolCalls(calls, family);
      switch (how) {
        case 'prefix':
          return prose + t + end;
        case 'suffix':
          return t + prose;
        case 'cut':
          return t.slice(0, t.length === 0 ? 0 : k % t.length);
        case 'dup':
          return t + t;
        default:
          return t + end;
      }
    });
}

describe('the lenient tier accepts everything the strict tier accepts (same calls)', () => {
  for (const family of FAMILIES) {
    it(family, () => {
      fc.assert(
        fc.property(
          fc.oneof(variants(family), textArb, nearMissArb),
          fc.constantFrom<'auto' | Family>('auto', family),
          (text, format) => {
            const strict = parseToolCalls(text, { tier: 'strict', format });
            const lenient = parseToolCalls(text, { tier: 'lenient', format });
            if (strict.calls.length > 0) {
              expect(lenient.calls).toEqual(strict.calls);
              expect(lenient.tier).toBe('strict');
              expect(lenient.format).toBe(strict.format);
            }
          },
        ),
        { numRuns: RUNS },
      );
    });
  }
});

describe('no parser throws, on any string', () => {
  const formats: Array<'auto' | Family> = ['auto', ...FAMILIES];
  const check = (text: string) => {
    for (const format of formats) {
      for (const tier of ['strict', 'lenient'] as const) wellFormed(parseToolCalls(text, { tier, format }));
    }
  };
  it('fc.string()', () => fc.assert(fc.property(fc.string({ maxLength: 200 }), check), { numRuns: 80 }));
  it('full unicode (binary units, incl. lone surrogates)', () =>
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), check), { numRuns: 80 }));
  it('near-miss strings from family markers, braces and quotes', () =>
    fc.assert(fc.property(nearMissArb, check), { numRuns: 150 }));
  it('damaged renderings of every family', () =>
    fc.assert(
      fc.property(
        fc.constantFrom(...FAMILIES).chain((f) => variants(f)),
        check,
      ),
      { numRuns: 100 },
    ));
  it('hostile repetitive inputs use work linear in their length (counted, not timed)', () => {
    const units = [
      '{"a": "',
      '{"name": "f", ',
      '{"name": "a", "arguments": {',
      '<tool_call>{',
      '[f(a=',
      '>>>f\n{',
      '<|tool_call>call:f{a:',
      '<function=f>\n<parameter=a>\n',
      'f(a=1)\n',
      '```json\n{"name": "f", "arguments": {}}\n```\n',
      '[TOOL_CALLS]f[ARGS]{',
      '<｜tool▁call▁begin｜>f<｜tool▁sep｜>{',
      '{{"a": {{',
      '<tool_call>f\n<arg_key>a</arg_key><arg_value>',
      '<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{',
      '<|channel|>commentary to=functions.f<|message|>{',
      '<minimax:tool_call><invoke name="f"><parameter name="a">',
      '<think>',
      '</think>',
    ];
    for (const u of units) {
      for (const size of [8_000, 32_000]) {
        const t = u.repeat(Math.ceil(size / u.length));
        for (const tier of ['strict', 'lenient'] as const) {
          const { result, work, limit } = parseWork(t, { tier });
          wellFormed(result);
          // the bound itself is linear (util.ts workLimit); every reader stops at it and says so
          expect(limit).toBeLessThanOrEqual(48 * t.length + 200_000);
          expect(work, JSON.stringify(u)).toBeLessThanOrEqual(limit + 1024);
          if (work > limit) expect(result.notes).toContain(BUDGET_NOTE);
        }
      }
    }
  });
  it('the reported quadratic case reads each position a bounded number of times', () => {
    // {"name": "a", "arguments": { repeated: every `{` starts a candidate that used to be re-read to the end
    const t = '{"name": "a", "arguments": {'.repeat(10_000);
    const { work } = parseWork(t, { tier: 'lenient' });
    expect(work).toBeLessThan(8 * t.length);
  });
  it('deep nesting is refused, not a stack overflow', () => {
    check('['.repeat(20000));
    check('{"a":'.repeat(5000));
    check(`<tool_call>${'{"name": "f", "arguments": '.repeat(3000)}`);
    check(`[f(a=${'['.repeat(5000)}`);
    check(`<|tool_call>call:f{${'a:{'.repeat(3000)}`);
  });
});

describe('no invented calls', () => {
  const prose = [
    'I would call the weather tool but I need a city',
    'Which city do you mean? I can look up the weather once I know.',
    'The function get_weather takes a city name.',
    'Use `get_weather` with the city argument.',
    'In Python you would write print(x) here.',
    'Sets look like {a, b} and lists like [1, 2].',
    'The config is {"name": "prod", "replicas": 3}.',
  ];
  const truncated = [
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Pa',
    '{"name": "get_weather", "arguments": {"city": "Paris"',
    '[TOOL_CALLS][{"name": "get_weather", "arguments": {',
    '<|tool_call|>[{"name": "get_weather"',
    "[get_weather(city='Par",
    '<|tool_call>call:get_weather{city:<|"|>Par',
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": ',
    '>>>get_weather\n{"city": "Pa',
    '<tool_call>\n<function=get_weather>\n<parameter=city>\nPar',
    '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Pa',
  ];
  for (const tier of ['strict', 'lenient'] as const) {
    it(`prose gives no call (${tier})`, () => {
      for (const t of prose) {
        const r = parseToolCalls(t, { tier });
        expect(r.calls, t).toEqual([]);
        expect(r.tier).toBe('none');
      }
    });
    it(`truncated calls give no call, attempted and truncated (${tier})`, () => {
      for (const t of truncated) {
        const r = parseToolCalls(t, { tier });
        expect(r.calls, t).toEqual([]);
        expect(r.attempted, t).toBe(true);
        expect(r.truncated, t).toBe(true);
      }
    });
  }
  it('every cut inside the arguments of a rendered call gives no call in either tier', () => {
    const call = { name: 'get_weather', arguments: { city: 'Paris "x" {y}', days: 3, opts: { deep: [1, null] } } };
    for (const family of FAMILIES) {
      const text = renderToolCalls([call], family);
      const tools = SCHEMA_TYPED.includes(family) ? toolsFromCalls([call]) : undefined;
      // index just after the serialised arguments: any shorter prefix leaves them incomplete
      const closers: Partial<Record<Family, string>> = {
        qwen3_xml: '</function>',
        seed_oss: '</function>',
        minicpm: '</function>',
        minimax: '</invoke>',
        deepseek_dsml: '</｜DSML｜invoke>',
        glm: '</tool_call>',
      };
      const closer = closers[family];
      const argsEnd =
        family === 'gemma4'
          ? text.indexOf(gemmaValue(call.arguments)) + gemmaValue(call.arguments).length
          : family === 'llama_pythonic' || family === 'lfm2'
            ? text.lastIndexOf(')') + 1
            : closer
              ? text.lastIndexOf(closer) + closer.length
              : text.indexOf(JSON.stringify(call.arguments)) + JSON.stringify(call.arguments).length;
      expect(argsEnd).toBeGreaterThan(10);
      for (let cut = 1; cut < argsEnd; cut++) {
        const t = text.slice(0, cut);
        for (const tier of ['strict', 'lenient'] as const) {
          for (const format of ['auto', family] as const) {
            const r = parseToolCalls(t, { tier, format, tools });
            expect(r.calls, `${family} ${tier} ${format} ${JSON.stringify(t)}`).toEqual([]);
          }
        }
      }
    }
  });
});

describe('the literal reader is skipped only for text that cannot be a Python literal', () => {
  // The oracle is the literal reader itself: whatever the cheap check skips, the reader must refuse too.
  const pieces = fc.constantFrom(
    '2025',
    '-',
    '03',
    '01',
    '東京',
    'Paris',
    'True',
    'None',
    "'",
    '"',
    'b',
    'r',
    '[',
    ']',
    '{',
    '}',
    '(',
    ')',
    ',',
    ':',
    '1',
    '.',
    'e',
    'j',
    '+',
    ' ',
    '_',
    '@',
    '<',
    'x',
  );
  const texts = fc.oneof(
    fc.string(),
    fc.array(pieces, { maxLength: 8 }).map((a) => a.join('')),
  );
  it('never skips a literal', () => {
    fc.assert(
      fc.property(texts, (raw) => {
        const t = raw.trim();
        if (t !== '' && cannotBeLiteral(t)) expect(tryLiteralEval(t), t).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });
  it('skips words, dates and non-ASCII names, and keeps every kind of literal', () => {
    for (const t of ['Paris', '東京', '2025-03-01', '<x>', 'nullish']) expect(cannotBeLiteral(t), t).toBe(true);
    for (const t of [
      '1',
      '-1.5',
      "'x'",
      '"x"',
      '[1]',
      "{'a': 1}",
      '(1,)',
      'True',
      'None',
      "b'x'",
      "rb'x'",
      '...',
      '1+2j',
      '.5',
    ])
      expect(cannotBeLiteral(t) || tryLiteralEval(t) === undefined, t).toBe(false);
  });
});
