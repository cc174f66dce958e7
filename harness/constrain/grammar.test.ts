import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs, sampled } from '../core/testkit.ts';
import { parseToolCalls, renderToolCalls, type Family, type ParsedCall, type ToolSchema } from '../parse/index.ts';
import { callFormat, CONSTRAINABLE_FAMILIES as FAMILIES, lazyGbnf, tagGbnf, type CallFormat } from './families.ts';
import { accepts, acceptsLazy, acceptsTriggeredTags, GrammarSyntaxError, rootEnds } from './recognize.ts';
import { readGoldCases, TOOLHOUND_CASES, TOOLHOUND_TOOLS, type GoldCase } from './testing.ts';

// Oracles: the gold outputs come from harness/parse's renderers (written for the parsers, not for these grammars);
// the malformed outputs are built by hand or by mutations whose breakage a reader can see; the recognizer reads
// grammar text and shares no code with the generator.

const ALL = readGoldCases();
const CALLS = ALL.filter((c) => c.expected !== null);

/** A format's grammar texts, written once per format: each format is checked against many outputs. */
const texts = new WeakMap<CallFormat, { lazy: string; tags: Array<{ begin: string; end: string; content: string }> }>();
function grammarTexts(f: CallFormat) {
  let t = texts.get(f);
  if (!t) {
    t = { lazy: lazyGbnf(f), tags: f.tags.map((x) => ({ begin: x.begin, end: x.end, content: tagGbnf(f, x) })) };
    texts.set(f, t);
  }
  return t;
}

function check(f: CallFormat, text: string) {
  const g = grammarTexts(f);
  const lazy = acceptsLazy(g.lazy, f.triggers, text);
  const tags = acceptsTriggeredTags(
    g.tags,
    f.tags.map((t) => t.begin),
    text,
  );
  return { lazy: lazy.accepted, triggered: lazy.triggeredAt !== null, tags };
}

const formats = new Map<string, CallFormat>();
function formatFor(family: Family, c: GoldCase): CallFormat {
  const key = `${family}|${c.tools.map((t) => t.name).join(',')}`;
  let f = formats.get(key);
  if (!f) formats.set(key, (f = callFormat(family, c.tools)));
  return f;
}

describe('the recognizer reads GBNF', () => {
  it('literals, classes, groups and repetition', () => {
    const g = 'root ::= "a" [0-9]{2,3} ("x" | "yz")* tail\ntail ::= [^a-c]? # comment\n';
    for (const s of ['a12', 'a123', 'a12xyzx', 'a12d', 'a123yz']) expect(accepts(g, s), s).toBe(true);
    // (a1234 and a12y are fine: the tail takes the last character)
    for (const s of ['a1', 'a12345', 'b12', 'a12xa', 'a12yzb']) expect(accepts(g, s), s).toBe(false);
  });
  it('escapes in literals and classes', () => {
    const g = 'root ::= "\\"\\n" [\\x41-\\x43] "\\u00e9" [^\\]]';
    expect(accepts(g, '"\nBéx')).toBe(true);
    expect(accepts(g, '"\nDéx')).toBe(false);
    expect(accepts(g, '"\nBé]')).toBe(false);
  });
  it('reports every end of a derivation (prefixes)', () => {
    expect(rootEnds('root ::= "ab"*', 'ababx')).toEqual([0, 2, 4]);
  });
  it('refuses a grammar with an undefined rule or no root', () => {
    expect(() => accepts('root ::= missing', 'x')).toThrow(GrammarSyntaxError);
    expect(() => accepts('start ::= "x"', 'x')).toThrow(GrammarSyntaxError);
  });
});

describe('grammars accept every gold call of the bundled probe cases', () => {
  for (const family of FAMILIES) {
    it(family, () => {
      const rejected: string[] = [];
      for (const c of sampled(CALLS, 4)) {
        const f = formatFor(family, c);
        const gold = renderToolCalls(c.expected!, family);
        const r = check(f, gold);
        if (!r.lazy || !r.triggered || !r.tags) rejected.push(`${c.id}: ${JSON.stringify(r)} ${gold.slice(0, 120)}`);
      }
      expect(rejected).toEqual([]);
    });
  }

  it('abstention (prose without a trigger) stays possible under every grammar', () => {
    const abstain = sampled(
      ALL.filter((c) => c.expected === null),
      3,
    );
    expect(abstain.length).toBeGreaterThan(10);
    for (const family of FAMILIES) {
      for (const c of abstain) {
        const r = check(formatFor(family, c), 'I can answer that directly: no tool is needed here, thanks for asking.');
        expect(r.lazy && r.tags && !r.triggered, `${family} ${c.id}`).toBe(true);
      }
    }
  });
});

describe.skipIf(!existsSync(TOOLHOUND_CASES))(
  "grammars accept Toolhound's real dev cases (needs ../shared/data)",
  () => {
    it('every family, every call-expected case', () => {
      const cases = sampled(
        readGoldCases(TOOLHOUND_CASES, TOOLHOUND_TOOLS).filter((c) => c.expected !== null),
        4,
      );
      expect(cases.length).toBeGreaterThan(20);
      const rejected: string[] = [];
      for (const family of FAMILIES)
        for (const c of cases) {
          const r = check(callFormat(family, c.tools), renderToolCalls(c.expected!, family));
          if (!r.lazy || !r.tags) rejected.push(`${family} ${c.id}`);
        }
      expect(rejected).toEqual([]);
    });
  },
);

// --- rejection ---------------------------------------------------------------------------------------------

const propsOf = (t: ToolSchema) =>
  (t.parameters as { properties?: Record<string, { type?: string; enum?: unknown }> } | undefined)?.properties ?? {};
const requiredOf = (t: ToolSchema) => (t.parameters as { required?: string[] } | undefined)?.required ?? [];

/** Families whose arguments are typed literals (a number where a string is declared is visibly wrong). */
const TYPED: Family[] = [
  'hermes',
  'llama_json',
  'llama_pythonic',
  'mistral',
  'granite',
  'gemma4',
  'deepseek',
  'functionary',
];
/** Families whose trigger words name the tool: a call to an unlisted tool never switches the grammar on. */
const NAME_TRIGGERED: Family[] = ['llama_pythonic'];

describe('grammars reject malformed calls', () => {
  const sample = CALLS.filter((_, i) => i % 3 === 0);

  for (const family of FAMILIES) {
    it(`${family}: truncated, unknown tool, missing required, extra and mistyped arguments`, () => {
      const wrong: string[] = [];
      for (const c of sample) {
        const f = formatFor(family, c);
        const calls = c.expected!;
        const gold = renderToolCalls(calls, family);
        const expectReject = (what: string, text: string) => {
          const r = check(f, text);
          if (r.lazy || r.tags) wrong.push(`${c.id} ${what}: ${JSON.stringify(r)} ${text.slice(0, 100)}`);
        };
        for (const k of [1, 2, 4]) expectReject(`truncated by ${k}`, gold.slice(0, gold.length - k));

        const renamed = calls.map((x, i) => (i === 0 ? { ...x, name: `zz_${x.name}` } : x));
        if (NAME_TRIGGERED.includes(family)) {
          // honest limit: the first call names no offered tool, so no trigger word appears and the grammar never applies
          expect(check(f, renderToolCalls(renamed, family)).triggered).toBe(false);
        } else expectReject('unknown tool', renderToolCalls(renamed, family));

        const tool = c.tools.find((t) => t.name === calls[0]!.name)!;
        const req = requiredOf(tool).find((k) => k in calls[0]!.arguments);
        if (req) {
          const { [req]: _drop, ...rest } = calls[0]!.arguments;
          expectReject(
            `missing ${req}`,
            renderToolCalls([{ ...calls[0]!, arguments: rest }, ...calls.slice(1)], family),
          );
        }
        expectReject(
          'extra argument',
          renderToolCalls(
            [{ ...calls[0]!, arguments: { ...calls[0]!.arguments, zz_extra: 'x' } }, ...calls.slice(1)],
            family,
          ),
        );

        if (TYPED.includes(family)) {
          const strKey = Object.entries(propsOf(tool)).find(
            ([k, s]) => s.type === 'string' && k in calls[0]!.arguments,
          )?.[0];
          if (strKey)
            expectReject(
              `number for string ${strKey}`,
              renderToolCalls(
                [{ ...calls[0]!, arguments: { ...calls[0]!.arguments, [strKey]: 12345 } }, ...calls.slice(1)],
                family,
              ),
            );
        }
        const enumKey = Object.entries(propsOf(tool)).find(
          ([k, s]) => Array.isArray(s.enum) && k in calls[0]!.arguments,
        )?.[0];
        if (enumKey)
          expectReject(
            `value outside the enum of ${enumKey}`,
            renderToolCalls(
              [
                { ...calls[0]!, arguments: { ...calls[0]!.arguments, [enumKey]: 'zzz-not-allowed' } },
                ...calls.slice(1),
              ],
              family,
            ),
          );
      }
      expect(wrong).toEqual([]);
    });
  }

  const weather: ToolSchema[] = [
    {
      name: 'get_weather',
      parameters: {
        type: 'object',
        properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
        required: ['location'],
      },
    },
    {
      name: 'get_time',
      parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
    },
  ];
  const handWritten: Array<[Family, string, boolean, boolean?]> = [
    ['hermes', '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>', true],
    [
      'hermes',
      'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}}\n</tool_call>',
      true,
    ],
    ['hermes', '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}\n</tool_call>', false],
    ['hermes', "<tool_call>\n{'name': 'get_weather', 'arguments': {'location': 'Paris'}}\n</tool_call>", false],
    // llama.cpp ends generation when the grammar completes; a structural tag returns to free text after its end
    [
      'hermes',
      '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris"}}\n</tool_call>\nDone!',
      false,
      true,
    ],
    [
      'hermes',
      '<tool_call>\n{"name": "get_weather", "arguments": "{\\"location\\": \\"Paris\\"}"}\n</tool_call>',
      false,
    ],
    [
      'hermes',
      '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Paris", "location": "Rome"}}\n</tool_call>',
      false,
    ],
    ['hermes', '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>', false],
    [
      'qwen3_xml',
      '<tool_call>\n<function=get_time>\n<parameter=timezone>\nEurope/Madrid\n</parameter>\n</function>\n</tool_call>',
      true,
    ],
    [
      'qwen3_xml',
      '<tool_call>\n<function=get_time>\n<parameter=timezone>\nEurope/Madrid\n</function>\n</tool_call>',
      false,
    ],
    [
      'qwen3_xml',
      '<tool_call>\n<function=get_time>\n<parameter=tz>\nEurope/Madrid\n</parameter>\n</function>\n</tool_call>',
      false,
    ],
    ['llama_json', '{"name": "get_time", "parameters": {"timezone": "UTC"}}', true],
    ['llama_json', '<|python_tag|>{"name": "get_time", "parameters": {"timezone": "UTC"}}', true],
    ['llama_json', '{"name": "get_time", "arguments": {"timezone": "UTC"}}', false],
    ['llama_pythonic', "[get_time(timezone='UTC'), get_weather(location=\"Oslo\", unit='celsius')]", true],
    ['llama_pythonic', '[get_time(timezone=UTC)]', false],
    ['llama_pythonic', "[get_time('UTC')]", false],
    ['mistral', '[TOOL_CALLS][{"name": "get_time", "arguments": {"timezone": "UTC"}, "id": "abc123XYZ"}]', true],
    ['mistral', '[TOOL_CALLS]get_time[ARGS]{"timezone": "UTC"}', true],
    ['mistral', '[TOOL_CALLS][{"name": "get_time", "arguments": {"timezone": "UTC"},}]', false],
    ['granite', '<|tool_call|>[{"name": "get_time", "arguments": {"timezone": "UTC"}}]', true],
    ['granite', '<|tool_call|>{"name": "get_time", "arguments": {"timezone": "UTC"}}', false],
    ['gemma4', '<|tool_call>call:get_time{timezone:<|"|>UTC<|"|>}<tool_call|>', true],
    ['gemma4', '<|tool_call>call:get_time{timezone:"UTC"}<tool_call|>', false],
    ['gemma4', '<|tool_call>get_time{timezone:<|"|>UTC<|"|>}<tool_call|>', false],
    [
      'deepseek',
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"timezone": "UTC"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
      true,
    ],
    [
      'deepseek',
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{"timezone": "UTC"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
      true,
    ],
    [
      'deepseek',
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{"timezone": "UTC"}<｜tool▁calls▁end｜>',
      false,
    ],
    ['functionary', '>>>get_time\n{"timezone": "UTC"}', true],
    ['functionary', '<function=get_time>{"timezone": "UTC"}</function>', true],
    ['functionary', '>>>get_time\ntimezone=UTC', false],
  ];
  for (const [family, text, ok, tagsOk = ok] of handWritten) {
    it(`${family}: ${ok ? 'accepts' : 'rejects'} ${JSON.stringify(text).slice(0, 70)}`, () => {
      const r = check(callFormat(family, weather), text);
      expect(r.lazy).toBe(ok);
      expect(r.tags).toBe(tagsOk);
    });
  }

  it('a string bound (--max-string-length) rejects longer strings and keeps shorter ones', () => {
    const f = callFormat('hermes', weather, { maxStringLength: 8 });
    const call = (loc: string) =>
      `<tool_call>\n{"name": "get_weather", "arguments": {"location": ${JSON.stringify(loc)}}}\n</tool_call>`;
    expect(check(f, call('Paris')).lazy).toBe(true);
    expect(check(f, call('Paris, France')).lazy).toBe(false);
    expect(lazyGbnf(f)).toContain('{0,8}');
  });
});

// --- properties --------------------------------------------------------------------------------------------

/** Schema-conforming calls for generated tools: names, property types and values drawn together. */
const propArb = fc.oneof(
  fc.constant({
    schema: { type: 'string' },
    value: fc.string({ unit: fc.constantFrom(...'abcXYZ 019-_.,:;!?/éß東'.split('')), maxLength: 12 }),
  }),
  fc.constant({ schema: { type: 'integer' }, value: fc.integer({ min: -99999, max: 99999 }) }),
  fc.constant({ schema: { type: 'number' }, value: fc.integer({ min: -1e8, max: 1e8 }).map((x) => x / 100) }),
  fc.constant({ schema: { type: 'boolean' }, value: fc.boolean() }),
  fc.constant({
    schema: { type: 'string', enum: ['red', 'green', 'blue'] },
    value: fc.constantFrom('red', 'green', 'blue'),
  }),
  fc.constant({
    schema: { type: 'array', items: { type: 'string' } },
    value: fc.array(fc.constantFrom('a', 'b c', 'd'), { maxLength: 3 }),
  }),
);

const toolArb = fc
  .record({
    name: fc.stringMatching(/^[a-z][a-z_]{2,10}$/),
    props: fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z_]{0,8}$/), propArb), {
      minLength: 1,
      maxLength: 5,
      selector: (p) => p[0],
    }),
  })
  .chain(({ name, props }) => {
    const tool: ToolSchema = {
      name,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(props.map(([k, p]) => [k, p.schema])),
        required: [props[0]![0]],
      },
    };
    const argArb = fc.tuple(
      ...props.map(([k, p], i) =>
        i === 0
          ? p.value.map((v) => [k, v] as const)
          : fc.option(
              p.value.map((v) => [k, v] as const),
              { nil: undefined },
            ),
      ),
    );
    return fc.tuple(
      fc.constant(tool),
      fc.shuffledSubarray([...Array(props.length).keys()], { minLength: props.length, maxLength: props.length }),
      argArb,
    );
  })
  .map(([tool, order, pairs]) => {
    const entries = order
      .map((i) => pairs[i] as readonly [string, unknown] | undefined)
      .filter((p): p is readonly [string, unknown] => p !== undefined);
    return { tool, call: { name: tool.name, arguments: Object.fromEntries(entries) } as ParsedCall };
  });

describe('properties', () => {
  it('any schema-conforming call, in any family and any argument order, is accepted', () => {
    fc.assert(
      fc.property(toolArb, fc.constantFrom(...FAMILIES), ({ tool, call }, family) => {
        const f = callFormat(family, [tool]);
        const text = renderToolCalls([call], family);
        const r = check(f, text);
        return r.lazy && r.tags && r.triggered;
      }),
      { numRuns: runs(150) },
    );
  });

  it('whatever the grammar accepts after the trigger, the strict parser reads as calls to the offered tools', () => {
    fc.assert(
      fc.property(
        toolArb,
        fc.constantFrom(...FAMILIES.filter((f) => f !== 'qwen3_xml')),
        fc.nat(),
        ({ tool, call }, family, cut) => {
          const f = callFormat(family, [tool]);
          const text = renderToolCalls([call], family);
          // a random deletion of one character: if the grammar still accepts it, the strict parser must agree it is a call
          const i = cut % text.length;
          const mutated = text.slice(0, i) + text.slice(i + 1);
          const r = check(f, mutated);
          if (!r.lazy || !r.triggered) return true;
          const parsed = parseToolCalls(mutated, { tier: 'strict', format: family, tools: [tool] });
          return parsed.calls.length > 0 && parsed.calls.every((c) => c.name === tool.name);
        },
      ),
      { numRuns: runs(200) },
    );
  });
});
