/**
 * Every call grammar toolgauge builds compiles in llama.cpp's own grammar parser, and llama.cpp's own grammar
 * matcher accepts each gold call under it (from the first trigger to the end, as a lazy grammar applies). The
 * oracle is llama.cpp (node-llama-cpp's prebuilt build), not toolgauge's recognizer. Skips visibly without
 * node-llama-cpp (`npm run setup:engine`).
 */
import { describe, expect, it } from 'vitest';
import { sampled } from '../core/testkit.ts';
import { renderToolCalls, type Family, type ToolSchema } from '../parse/index.ts';
import { callFormat, CONSTRAINABLE_FAMILIES as FAMILIES, lazyGbnf, tagGbnf } from './families.ts';
import { firstTrigger } from './recognize.ts';
import { constraintFor } from './requests.ts';
import { RuleSet, seq } from './gbnf.ts';
import { SchemaGrammar } from './schema-gbnf.ts';
import { readGoldCases } from './testing.ts';
import { loadLlamaForTests, type TestLlama } from './llamacpp-testing.ts';

const llama: TestLlama | null = await loadLlamaForTests();

const ALL = readGoldCases();
// Representative tool sets: every distinct tool set of the bundled probe cases, plus one with every JSON-Schema
// construct the generators handle (enums, nested objects, arrays, numbers, booleans, nullable, bounds).
const RICH: ToolSchema[] = [
  {
    name: 'book_trip',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 1, maxLength: 40 },
        nights: { type: 'integer', minimum: 1, maximum: 30 },
        budget: { type: 'number' },
        refundable: { type: 'boolean' },
        class: { type: 'string', enum: ['economy', 'business'] },
        guests: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, age: { type: ['integer', 'null'] } },
            required: ['name'],
          },
        },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['city', 'nights'],
    },
  },
  { name: 'ping', parameters: { type: 'object', properties: {} } },
];
const toolSets = new Map<string, ToolSchema[]>();
for (const c of ALL) toolSets.set(c.tools.map((t) => t.name).join(','), c.tools);
toolSets.set('rich', RICH);
const SETS = sampled([...toolSets.values()], 3);

describe.skipIf(!llama)(
  'llama.cpp compiles every call grammar toolgauge builds (needs node-llama-cpp: npm run setup:engine)',
  () => {
    it.each(FAMILIES)(
      '%s: lazy grammar and structural-tag contents, strings unbounded and bounded, one call or several',
      async (family: Family) => {
        const refused: string[] = [];
        let compiled = 0;
        for (const tools of SETS) {
          for (const [bound, singleCall] of [
            [undefined, false],
            [64, false],
            [16, true],
          ] as const) {
            const f = callFormat(family, tools, {
              ...(bound === undefined ? {} : { maxStringLength: bound }),
              ...(singleCall ? { singleCall } : {}),
            });
            for (const g of [lazyGbnf(f), ...f.tags.map((t) => tagGbnf(f, t))]) {
              try {
                await llama!.compile(g);
                compiled++;
              } catch (e) {
                refused.push(
                  `${tools.map((t) => t.name).join(',')} bound=${bound}: ${(e as Error).message}\n${g.slice(0, 300)}`,
                );
              }
            }
          }
        }
        expect(refused).toEqual([]);
        expect(compiled).toBeGreaterThan(SETS.length);
      },
    );

    it.each(FAMILIES)('%s: llama.cpp accepts every gold call from its trigger on', async (family: Family) => {
      const rejected: string[] = [];
      for (const c of sampled(
        ALL.filter((x) => x.expected !== null),
        4,
      )) {
        const f = callFormat(family, c.tools);
        const gold = renderToolCalls(c.expected!, family);
        const at = firstTrigger(gold, f.triggers) ?? 0;
        if (!(await llama!.accepts(lazyGbnf(f), gold.slice(at))))
          rejected.push(`${c.id}: ${JSON.stringify(gold.slice(at, at + 160))}`);
      }
      expect(rejected).toEqual([]);
    });

    it('JSON-Schema grammars (a json_schema / response_format request): every tool schema compiles, every gold argument object is accepted', async () => {
      const refused: string[] = [];
      const grammarOf = (schema: unknown) => {
        const rules = new RuleSet();
        const g = new SchemaGrammar(rules);
        return rules.toGbnf(seq(g.value(schema, 'json'), g.ws()));
      };
      for (const c of sampled(
        ALL.filter((x) => x.expected !== null),
        2,
      )) {
        for (const call of c.expected!) {
          const tool = c.tools.find((t) => t.name === call.name)!;
          const g = grammarOf(tool.parameters ?? { type: 'object' });
          if (!(await llama!.accepts(g, JSON.stringify(call.arguments))))
            refused.push(`${c.id}: ${JSON.stringify(call.arguments)}`);
        }
      }
      for (const t of RICH) await llama!.compile(grammarOf(t.parameters));
      expect(refused).toEqual([]);
      expect(await llama!.accepts(grammarOf(RICH[0]!.parameters), '{"city": "Oslo", "nights": 1e1}')).toBe(false);
    });

    it('a required call (--decode required): one call from the first token, no prose, no second call', async () => {
      const k = constraintFor('llamacpp', 'hermes', RICH, { transport: 'completions', required: true });
      expect(k.ok && k.body.grammar_lazy).toBeFalsy();
      const g = k.ok ? String(k.body.grammar) : '';
      const one = renderToolCalls([{ name: 'ping', arguments: {} }], 'hermes');
      expect(await llama!.accepts(g, one)).toBe(true);
      expect(await llama!.accepts(g, `${one}\n${one}`)).toBe(false);
      expect(await llama!.accepts(g, `Sure. ${one}`)).toBe(false);
      expect(constraintFor('vllm', 'hermes', RICH, { transport: 'chat', required: true }).ok).toBe(false);
    });

    it('integer bounds are in the grammar (a narrow range written out), wide ranges are not', async () => {
      const g = lazyGbnf(callFormat('hermes', RICH));
      const trip = (nights: number) =>
        renderToolCalls([{ name: 'book_trip', arguments: { city: 'Oslo', nights } }], 'hermes');
      expect(await llama!.accepts(g, trip(1))).toBe(true);
      expect(await llama!.accepts(g, trip(30))).toBe(true);
      expect(await llama!.accepts(g, trip(0))).toBe(false);
      expect(await llama!.accepts(g, trip(31))).toBe(false);
      const wide: ToolSchema[] = [
        {
          name: 'n',
          parameters: {
            type: 'object',
            properties: { x: { type: 'integer', minimum: 0, maximum: 100000 } },
            required: ['x'],
          },
        },
      ];
      expect(
        await llama!.accepts(
          lazyGbnf(callFormat('hermes', wide)),
          renderToolCalls([{ name: 'n', arguments: { x: 100001 } }], 'hermes'),
        ),
      ).toBe(true);
    });

    it('the oracle can say no: a malformed call and another tool are rejected', async () => {
      const f = callFormat('hermes', RICH);
      const g = lazyGbnf(f);
      expect(await llama!.accepts(g, renderToolCalls([{ name: 'ping', arguments: {} }], 'hermes'))).toBe(true);
      expect(await llama!.accepts(g, renderToolCalls([{ name: 'other', arguments: {} }], 'hermes'))).toBe(false);
      expect(await llama!.accepts(g, '<tool_call>\n{"name": "ping", "arguments": {}\n</tool_call>')).toBe(false);
    });
  },
);
