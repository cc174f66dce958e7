import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat.ts';
import { FINALIZER_SYSTEM_PROMPT, finalizationContext, userPrompt } from './prompts.ts';
import type { ToolhopRow } from './row.ts';
import { identifyRow, questionIndex } from './sim-identify.ts';

const row = (id: string, question: string, tools: string[] = ['t']): ToolhopRow => ({
  id,
  question,
  answer: 'a',
  sub_task: {},
  tools: Object.fromEntries(
    tools.map((name) => [name, { name, description: '', parameters: { type: 'object', properties: {} } }]),
  ),
  functions: [],
  domain: '',
  answer_type: '',
  previous_answer_type: '',
});

/** Questions as the dataset has them: words, digits, punctuation, no line breaks. */
const question = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ,.'?-]{4,60}[A-Za-z0-9?]$/);

describe('identifyRow: a request names its row by content', () => {
  it('finds the row from every request a runner makes: a turn, with context, and the final-answer call', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(question, { minLength: 2, maxLength: 6 }),
        fc.nat(),
        fc.string({ maxLength: 80 }),
        (qs, k, observation) => {
          const rows = qs.map((q, i) => [`r${i}`, row(`r${i}`, q)] as [string, ToolhopRow]);
          const index = questionIndex(rows);
          const i = k % qs.length;
          const want = `r${i}`;
          const turn: ChatMessage[] = [
            { role: 'system', content: 's' },
            { role: 'user', content: userPrompt(qs[i]!) },
          ];
          expect(identifyRow(index, { messages: turn })).toBe(want);
          expect(
            identifyRow(index, {
              messages: [turn[0]!, { role: 'user', content: userPrompt(qs[i]!, `agent 1: ${observation}`) }],
            }),
          ).toBe(want);
          const history: ChatMessage[] = [
            ...turn,
            { role: 'assistant', content: observation },
            { role: 'tool', tool_call_id: 'c', content: observation },
          ];
          const final: ChatMessage[] = [
            { role: 'system', content: FINALIZER_SYSTEM_PROMPT },
            { role: 'user', content: finalizationContext(history) },
          ];
          expect(identifyRow(index, { messages: final })).toBe(want);
          // A runner that words its task otherwise, the question on its own line.
          expect(
            identifyRow(index, { messages: [{ role: 'user', content: `Please solve:\n${qs[i]}\nThanks.` }] }),
          ).toBe(want);
        },
      ),
    );
  });

  it('prefers the longest question; tells rows asking the same question apart by their tools; names no row for an unknown question', () => {
    const index = questionIndex([
      ['short', row('short', 'Who wrote it?')],
      ['long', row('long', 'Who wrote it? And when?')],
      ['x', row('x', 'Same question?', ['alpha'])],
      ['y', row('y', 'Same question?', ['beta'])],
    ]);
    const ask = (q: string, tools?: string[]) =>
      identifyRow(index, {
        messages: [{ role: 'user', content: userPrompt(q) }],
        tools: tools?.map((name) => ({ type: 'function', function: { name, parameters: {} } })),
      });
    expect(ask('Who wrote it? And when?')).toBe('long');
    expect(ask('Who wrote it?')).toBe('short');
    expect(ask('Same question?', ['beta'])).toBe('y');
    expect(ask('Same question?', ['alpha__0'])).toBe('x');
    expect(ask('Who wrote it? Twice')).toBeUndefined();
    expect(ask('Who wrote')).toBeUndefined();
    expect(
      identifyRow(index, { messages: [{ role: 'user', content: 'Question: What is the capital of Mars?' }] }),
    ).toBeUndefined();
  });
});
