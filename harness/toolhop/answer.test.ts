import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { startOracle } from '../core/pyliteral/python-oracle.ts';
import { prefetchedOracle } from '../core/testkit.ts';
import { answerKey, extractAnswer, lastAssistantContent, previousToolContent, type MessageLike } from './answer.ts';
import { messageText } from '../core/pyliteral/testkit.ts';

describe('extractAnswer (re.search(r"<answer>\\s*(.*?)\\s*</answer>", I|S), first match, stripped)', () => {
  it.each([
    ['The answer is <answer> 1998 </answer>.', '1998'],
    ['<ANSWER>\nParis\n</Answer>', 'Paris'],
    ['<answer>a</answer> <answer>b</answer>', 'a'],
    ['<answer>a <answer>b</answer>', 'a <answer>b'],
    ['<answer>no close', '<answer>no close'],
    ['  plain text \u2028', 'plain text'],
    ['<anſwer>x</ANſWER>', 'x'], // re.IGNORECASE matches U+017F LONG S as s
    ['<answer>\x1c x \x1f</answer>', 'x'],
    ['</answer>x<answer>y</answer>', 'y'],
    ['<answer></answer>', ''],
  ])('%j -> %j', (text, expected) => {
    expect(extractAnswer(text)).toBe(expected);
  });
});

describe('answerKey ((a or "").strip().removesuffix(".0").replace(",", "").lower())', () => {
  it.each([
    [' 1,000.0 ', '1000'],
    ['5.0.0', '5.0'],
    ['İstanbul', 'i\u0307stanbul'],
    ['ΟΔΥΣΣΕΥΣ', 'οδυσσευς'],
    [null, ''],
    [undefined, ''],
    ['\x85Paris\x1c', 'paris'],
  ] as const)('%j -> %j', (a, expected) => {
    expect(answerKey(a)).toBe(expected);
  });
});

describe('message helpers', () => {
  const msgs: MessageLike[] = [
    { role: 'tool', content: 'T0' },
    { role: 'user', content: 'q' },
    { role: 'assistant', content: null },
    { role: 'tool', content: 'T3' },
    { role: 'assistant', content: 'A4' },
    { role: 'tool', content: 'T5' },
    { role: 'assistant', content: '' },
  ];

  it('lastAssistantContent skips empty and null content', () => {
    expect(lastAssistantContent(msgs)).toBe('A4');
    expect(lastAssistantContent([{ role: 'user', content: 'x' }])).toBe('');
  });

  it('previousToolContent returns the first tool message before an assistant one, never index 0', () => {
    expect(previousToolContent(msgs)).toBe('T5');
    expect(previousToolContent(msgs.slice(0, 5))).toBe('T3');
    expect(previousToolContent(msgs.slice(0, 4))).toBe(''); // tool messages after the last assistant do not count
    expect(
      previousToolContent([
        { role: 'tool', content: 'T0' },
        { role: 'assistant', content: 'a' },
      ]),
    ).toBe('');
  });
});

const { oracle, skipReason } = await startOracle('toolhop/answer');
afterAll(async () => oracle?.close());
const units = (s: string) => Array.from({ length: s.length }, (_, k) => s.charCodeAt(k));

describe.skipIf(skipReason !== undefined)(
  `answer helpers agree with the Python reference${skipReason ? ` — SKIPPED: ${skipReason}` : ''}`,
  () => {
    it('extract_answer and answer_key', async () => {
      const requests = (text: string) => [
        { op: 'extract', text },
        { op: 'key', text },
      ];
      const { seed, ask } = await prefetchedOracle(oracle!, messageText, 2500, requests);
      await fc.assert(
        fc.asyncProperty(messageText, async (text) => {
          const [extract, key] = await ask<[number[], number[]]>(requests(text));
          expect(units(extractAnswer(text)), `extract ${JSON.stringify(text)}`).toEqual(extract);
          expect(units(answerKey(text)), `key ${JSON.stringify(text)}`).toEqual(key);
        }),
        { numRuns: 2500, seed },
      );
    });

    it('last_assistant_content and previous_tool_content', async () => {
      const message = fc.record(
        {
          role: fc.constantFrom('assistant', 'tool', 'user', 'system'),
          content: fc.oneof(fc.constantFrom(null, '', 'x', 'y'), fc.string({ maxLength: 3 })),
        },
        { requiredKeys: ['role'] },
      );
      const conversation = fc.array(message, { maxLength: 8 });
      const { seed, ask } = await prefetchedOracle(oracle!, conversation, 1000, (messages) => ({
        op: 'messages',
        messages,
      }));
      await fc.assert(
        fc.asyncProperty(conversation, async (messages) => {
          const ref = await ask<{ last: number[]; tool: number[] }>({ op: 'messages', messages });
          expect(units(lastAssistantContent(messages))).toEqual(ref.last);
          expect(units(previousToolContent(messages))).toEqual(ref.tool);
        }),
        { numRuns: 1000, seed },
      );
    });
  },
);
