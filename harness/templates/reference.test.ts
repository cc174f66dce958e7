import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callsFor, SCHEMA_TYPED, toolsFromCalls } from '../parse/arbitraries.ts';
import { FAMILIES, parseToolCalls, type ParsedCall } from '../parse/index.ts';
import { detectTemplateFamily, generatedPart } from './family.ts';
import { userMessage } from './fixtures.ts';
import { referenceTemplate } from './reference.ts';
import { renderChat } from './render.ts';
import type { ChatMessage, OpenAITool } from './types.ts';

// The render → parse round trip: what a family's reference template writes for an assistant turn with calls is
// exactly what the family's strict parser reads back. Values come from the same generators as the parser's own
// round trip (harness/parse/arbitraries.ts), so every value the format can carry is tried.

/** Call ids of 9 alphanumeric characters (Mistral's rule; the others take any). */
function assistantTurn(calls: ParsedCall[]): ChatMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: calls.map((c, i) => ({
      id: `call${i}abcd`,
      type: 'function' as const,
      function: { name: c.name, arguments: c.arguments },
    })),
  };
}

function toolsOf(calls: ParsedCall[]): OpenAITool[] {
  return toolsFromCalls(calls).map((t) => ({
    type: 'function' as const,
    function: { name: t.name, parameters: t.parameters },
  }));
}

describe('render → parse round trip through every reference template', () => {
  for (const family of FAMILIES) {
    it(family, () => {
      const source = referenceTemplate(family)!;
      expect(source).toBeTruthy();
      fc.assert(
        fc.property(
          callsFor(family).filter((cs) => cs.length > 0),
          (calls) => {
            const tools = toolsOf(calls);
            const prompt = renderChat(source, { messages: [userMessage()], tools, addGenerationPrompt: true });
            const full = renderChat(source, {
              messages: [userMessage(), assistantTurn(calls)],
              tools,
              addGenerationPrompt: false,
            });
            const part = generatedPart(prompt, full);
            const parserTools = SCHEMA_TYPED.includes(family) ? toolsFromCalls(calls) : undefined;
            const r = parseToolCalls(part, { tier: 'strict', format: family, tools: parserTools });
            expect(r.calls).toEqual(calls);
            expect(r.format).toBe(family);
          },
        ),
        { numRuns: 25, seed: 20260115 },
      );
    });
  }
});

describe('family detection by rendering', () => {
  it('every reference template is detected as its own family, from the call it renders', () => {
    for (const family of FAMILIES) {
      const d = detectTemplateFamily(referenceTemplate(family)!);
      expect(d.family, family).toBe(family);
      expect(d.how).toBe('rendered');
      expect(d.verified).toBe(true);
    }
  });

  it('falls back to markers when nothing renders, and says so', () => {
    const d = detectTemplateFamily("{{ raise_exception('no') }}<|tool_calls_section_begin|>");
    expect(d).toMatchObject({ family: 'kimi_k2', how: 'markers' });
    expect(detectTemplateFamily('{{ messages[0].content }}')).toMatchObject({
      family: null,
      how: 'none',
      verified: false,
    });
  });

  it('generatedPart never cuts a marker in two when the generation prompt is not a prefix', () => {
    expect(generatedPart('<|im_start|>assistant\n<think>\n', '<|im_start|>assistant\n<tool_call>\n{}')).toBe(
      '<tool_call>\n{}',
    );
    expect(generatedPart('A<｜Assistant｜><think>\n', 'A<｜Assistant｜><｜tool▁calls▁begin｜>')).toBe(
      '<｜tool▁calls▁begin｜>',
    );
    expect(generatedPart('ab', 'abc')).toBe('c');
  });
});
