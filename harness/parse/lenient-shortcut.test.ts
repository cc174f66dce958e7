import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callsFor, NEAR_MISS_TOKENS, textArb, toolsFromCalls } from './arbitraries.ts';
import { parseCorpus } from './corpus.ts';
import { FAMILIES, parseToolCalls, parseWithoutShortcut, type ParseOptions } from './index.ts';

// The lenient pass returns the strict pass's result without running the generic rescue when no family's loose gate
// passed and the text holds no bracket or parenthesis. The oracle is the same parse with that shortcut off, which must
// give the identical result — calls, content, reasoning, notes, attempted, truncated — on every input.

function same(text: string, opts: ParseOptions = {}) {
  const o: ParseOptions = { ...opts, tier: 'lenient' };
  const [got, want] = [parseToolCalls(text, o), parseWithoutShortcut(text, o)];
  if (JSON.stringify(got) !== JSON.stringify(want)) expect(got, JSON.stringify(text).slice(0, 300)).toEqual(want);
}

/** Prose, reasoning markers and words that open families' gates, mostly without the characters the shortcut tests. */
const pieceArb = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 6 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      ' ',
      '\n',
      'tool',
      'call',
      'tool call',
      'function',
      'invoke',
      'Action:',
      '"name": "f"',
      ':',
      '<think>',
      '</think>',
      '[THINK]',
      '<|START_THINKING|>',
      '<|channel|>analysis<|message|>',
      '<|end|>',
      '```',
      '```json\n',
      '</s>',
      'f(a=1)',
      '{"name": "f", "arguments": {}}',
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom(...NEAR_MISS_TOKENS) },
  { weight: 1, arbitrary: textArb },
);
const textsArb = fc.array(pieceArb, { maxLength: 12 }).map((xs) => xs.join(''));

describe('the lenient shortcut', () => {
  it('gives what the full lenient pass gives on prose without brackets', () => {
    for (const t of ["Hello, world!\nWhat's up?", 'This is not a tool call.', '<think>a tool</think>No call.', ''])
      same(t);
  });

  it('gives what the full lenient pass gives on the corpus', () => {
    for (const c of parseCorpus()) same(c.text);
  });

  it('gives what the full lenient pass gives on generated text, format auto and named, with and without tools', () => {
    fc.assert(
      fc.property(
        textsArb,
        fc.constantFrom('auto' as const, ...FAMILIES),
        fc.option(callsFor('hermes'), { nil: undefined }),
        (text, format, calls) => {
          same(text, { format, ...(calls ? { tools: toolsFromCalls(calls) } : {}) });
        },
      ),
      { numRuns: 3000 },
    );
  });
});
