import { describe, expect, it } from 'vitest';
import { constraintOfRequest, stringBoundOf } from './from-request.ts';
import { constraintFor, SERVERS } from './requests.ts';
import { readGoldCases } from './testing.ts';

const gold = readGoldCases().slice(0, 40);

describe('the constraint a request carries, read back from its body', () => {
  it('reads back, for every server and transport toolgauge can constrain, the grammar / tags / strict tools it sent', () => {
    let checked = 0;
    for (const server of SERVERS) {
      for (const transport of ['chat', 'completions'] as const) {
        for (const c of gold) {
          const k = constraintFor(server, 'hermes', c.tools, { transport, maxStringLength: 64 });
          if (!k.ok) continue;
          const body = {
            model: 'm',
            ...(transport === 'chat'
              ? { messages: [], tools: c.tools.map((t) => ({ type: 'function', function: t })) }
              : { prompt: 'p' }),
            ...k.body,
          };
          const spec = constraintOfRequest(body, 'hermes', c.tools);
          expect(spec?.mode, `${server}/${transport}`).toBe(k.spec.mode);
          // the string bound travels inside the grammar (OpenAI strict mode has none)
          expect(spec?.maxStringLength, `${server}/${transport}`).toBe(k.spec.mode === 'strict_tools' ? null : 64);
          if (k.spec.mode === 'lazy_grammar')
            expect([spec!.grammar, spec!.triggers]).toEqual([k.spec.grammar, k.spec.triggers]);
          if (k.spec.mode === 'triggered_tags')
            expect([spec!.tags, spec!.triggers]).toEqual([k.spec.tags, k.spec.triggers]);
          if (k.spec.mode === 'strict_tools')
            expect(spec!.tools.map((t) => t.name)).toEqual(c.tools.map((t) => t.name));
          checked++;
        }
      }
    }
    // llama.cpp completions, vLLM chat and completions, SGLang chat, OpenAI chat
    expect(checked).toBe(5 * gold.length);
  });

  it('an unbounded string in any piece makes the bound unknown (null)', () => {
    expect(stringBoundOf(['json-string ::= "\\"" json-char{0,40} "\\""', 'x ::= py-char-sq{0,12}'])).toBe(40);
    expect(stringBoundOf(['json-string ::= "\\"" json-char{0,40} "\\""', 'xml-text ::= xml-char*'])).toBeNull();
    expect(stringBoundOf(['root ::= "x"'])).toBeNull();
  });

  it('no constraint: a plain body, plain tools, an unparseable structural tag; a grammar that is not lazy has no triggers', () => {
    const tools = gold[0]!.tools;
    expect(constraintOfRequest({ model: 'm', prompt: 'x', temperature: 0 }, 'hermes', tools)).toBeNull();
    expect(
      constraintOfRequest(
        { model: 'm', messages: [], tools: tools.map((t) => ({ type: 'function', function: t })) },
        'hermes',
        tools,
      ),
    ).toBeNull();
    expect(constraintOfRequest({ structured_outputs: { structural_tag: '{not json' } }, 'hermes', tools)).toBeNull();
    const eager = constraintOfRequest(
      { grammar: 'root ::= "x"', grammar_triggers: [{ type: 1, value: '<tool_call>' }] },
      'hermes',
      tools,
    );
    expect(eager).toMatchObject({ mode: 'lazy_grammar', triggers: [] });
  });
});
