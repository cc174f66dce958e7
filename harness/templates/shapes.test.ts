import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROBE_TOOL, PROBE_TOOL_PLAIN, standardHistory } from './fixtures.ts';
import { renderChat } from './render.ts';
import { REFERENCE_FAMILIES, referenceTemplate } from './repair.ts';
import { applyShape, chooseShape, priorCallOutcome, SHAPES, type MessageShape } from './shapes.ts';
import type { ChatMessage } from './types.ts';

const TEMPLATES = fileURLToPath(new URL('../../../shared/data/templates/', import.meta.url));
const NINE = /^[A-Za-z0-9]{9}$/;

describe('applyShape', () => {
  const history = standardHistory();

  it('converts arguments to dicts or JSON strings', () => {
    const asObject = applyShape(history, { argumentsAs: 'object', withCallIds: true, contentWhenCalls: 'null' });
    expect(asObject[1]!.tool_calls![0]!.function.arguments).toEqual({ city: 'Paris', unit: 'celsius' });
    const asString = applyShape(asObject, { argumentsAs: 'string', withCallIds: true, contentWhenCalls: 'null' });
    expect(JSON.parse(asString[1]!.tool_calls![0]!.function.arguments as string)).toEqual({
      city: 'Paris',
      unit: 'celsius',
    });
  });

  it('keeps non-JSON string arguments as they are', () => {
    const odd: ChatMessage[] = [
      { role: 'assistant', tool_calls: [{ function: { name: 'f', arguments: 'not json' } }] },
    ];
    expect(applyShape(odd, SHAPES[0]!)[0]!.tool_calls![0]!.function.arguments).toBe('not json');
  });

  it('gives 9-character alphanumeric ids and re-links tool results, deterministically', () => {
    const shaped = applyShape(history, { argumentsAs: 'object', withCallIds: true, contentWhenCalls: 'null' });
    const id = shaped[1]!.tool_calls![0]!.id!;
    expect(id).toMatch(NINE);
    expect(shaped[2]!.tool_call_id).toBe(id);
    expect(applyShape(history, SHAPES[0]!)).toEqual(shaped);
  });

  it('removes ids from calls and results without ids', () => {
    const shaped = applyShape(history, { argumentsAs: 'string', withCallIds: false, contentWhenCalls: 'null' });
    expect(shaped[1]!.tool_calls![0]).not.toHaveProperty('id');
    expect(shaped[2]).not.toHaveProperty('tool_call_id');
  });

  it('other id styles: OpenAI-like and short', () => {
    expect(applyShape(history, SHAPES[0]!, 'openai')[1]!.tool_calls![0]!.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    expect(applyShape(history, SHAPES[0]!, 'short')[2]!.tool_call_id).toBe('call_0');
  });

  it('sets content next to calls to null, "" or nothing, and keeps real text', () => {
    const content = (c: MessageShape['contentWhenCalls']) =>
      applyShape(history, { argumentsAs: 'object', withCallIds: true, contentWhenCalls: c })[1]!;
    expect(content('null').content).toBeNull();
    expect(content('empty').content).toBe('');
    expect(content('absent')).not.toHaveProperty('content');
    const withText: ChatMessage[] = [{ ...history[1]!, content: 'Let me check.' }];
    expect(
      applyShape(withText, { argumentsAs: 'object', withCallIds: true, contentWhenCalls: 'absent' })[0]!.content,
    ).toBe('Let me check.');
    expect(applyShape(history, SHAPES[0]!)[3]!.content).toBe(history[3]!.content);
  });

  it('property: every tool result points at an earlier call id, even when results had no ids or came out of order', () => {
    const call = (n: number): ChatMessage => ({
      role: 'assistant',
      content: null,
      tool_calls: Array.from({ length: n }, (_, i) => ({
        id: `c${i}`,
        type: 'function' as const,
        function: { name: `f${i}`, arguments: '{}' },
      })),
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.boolean(), (n, keepIds, reverse) => {
        const results: ChatMessage[] = Array.from({ length: n }, (_, i) => ({
          role: 'tool',
          content: 'r',
          ...(keepIds ? { tool_call_id: `c${i}` } : {}),
        }));
        const messages = [
          { role: 'user', content: 'q' } as ChatMessage,
          call(n),
          ...(reverse && keepIds ? results.reverse() : results),
        ];
        const shaped = applyShape(messages, SHAPES[0]!);
        const ids = shaped[1]!.tool_calls!.map((c) => c.id!);
        expect(new Set(ids).size).toBe(n);
        for (const id of ids) expect(id).toMatch(NINE);
        const linked = shaped.slice(2).map((m) => m.tool_call_id);
        expect([...linked].sort()).toEqual([...ids].sort());
        if (keepIds)
          shaped
            .slice(2)
            .forEach((m, k) => expect(m.tool_call_id).toBe(ids[Number(messages[k + 2]!.tool_call_id!.slice(1))]));
      }),
      { numRuns: 60 },
    );
  });
});

describe('priorCallOutcome', () => {
  it('kept, double-encoded or dropped', () => {
    expect(priorCallOutcome('{"name": "get_weather", "arguments": {"city": "Paris"}}')).toBe('kept');
    expect(priorCallOutcome("get_weather(city='Paris')")).toBe('kept');
    expect(priorCallOutcome('{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}')).toBe(
      'double_encoded',
    );
    expect(priorCallOutcome('<tools>get_weather</tools> user: what about Lyon?')).toBe('dropped');
    expect(priorCallOutcome(`get_weather ${'x'.repeat(400)} Paris`)).toBe('dropped');
  });
});

describe('chooseShape', () => {
  it('chooses the first shape for the reference templates, where every shape keeps the call', () => {
    for (const family of REFERENCE_FAMILIES) {
      const choice = chooseShape(referenceTemplate(family)!);
      expect(choice.shape, family).toEqual(SHAPES[0]);
      expect(
        choice.tried.map((t) => t.outcome),
        family,
      ).toEqual(SHAPES.map(() => 'kept'));
    }
  });

  it('skips shapes that raise, and prefers a clean call to a double-encoded one', () => {
    const hermes = referenceTemplate('hermes')!;
    const stringOnly = hermes.replace(
      '{%- if fn.arguments is string -%}',
      "{%- if fn.arguments is mapping -%}{{- raise_exception('arguments must be a string') -}}{%- endif -%}{%- if fn.arguments is string -%}",
    );
    expect(stringOnly).not.toBe(hermes);
    const choice = chooseShape(stringOnly);
    expect(choice.shape).toEqual({ argumentsAs: 'string', withCallIds: true, contentWhenCalls: 'null' });
    expect(choice.tried[0]).toMatchObject({
      outcome: 'error',
      errorKind: 'raised',
      error: 'arguments must be a string',
    });

    const alwaysTojson = hermes.replace('{{- fn.arguments -}}', '{{- fn.arguments | tojson -}}');
    const tried = chooseShape(alwaysTojson).tried;
    expect(tried.find((t) => t.shape.argumentsAs === 'string')!.outcome).toBe('double_encoded');
  });

  it('returns null when no shape keeps the call', () => {
    const hermes = referenceTemplate('hermes')!;
    const dropping = hermes.replace(/\{%- for call in message\.tool_calls[\s\S]*?\{%- endfor -%\}/, '');
    expect(dropping).not.toBe(hermes);
    const choice = chooseShape(dropping);
    expect(choice.shape).toBeNull();
    expect(new Set(choice.tried.map((t) => t.outcome))).toEqual(new Set(['dropped']));
  });

  describe.skipIf(!existsSync(TEMPLATES))('on the real templates (needs ../shared/data)', () => {
    const files = existsSync(TEMPLATES) ? readdirSync(TEMPLATES).filter((f) => f.endsWith('.jinja')) : [];
    it.each(files)('%s: the chosen shape renders the history and keeps the prior call', async (file) => {
      const source = readFileSync(TEMPLATES + file, 'utf8');
      const choice = chooseShape(source);
      expect(choice.shape).not.toBeNull();
      const rendered = renderChat(source, {
        messages: applyShape(standardHistory(), choice.shape!),
        tools: choice.tools,
        addGenerationPrompt: true,
      });
      expect(priorCallOutcome(rendered)).toBe('kept');
      // functionary cannot be rendered with described parameters (tuple unpacking): the plain tool is used.
      expect(choice.tools[0]).toBe(file.startsWith('functionary') ? PROBE_TOOL_PLAIN : PROBE_TOOL);
    });
  });
});
