import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clipTail, fitChunks } from './context.ts';

const len = (s: string) => Array.from(s).length;

describe('clipTail', () => {
  it('keeps short text and cuts long text to its tail, marked, within the limit', () => {
    expect(clipTail('abc', 3)).toBe('abc');
    expect(clipTail('abcdefghij', 8)).toBe('[…] ghij');
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.nat(70), (s, max) => {
        const out = clipTail(s, max);
        expect(len(out)).toBeLessThanOrEqual(Math.max(max, len(s) <= max ? len(s) : 0));
        if (len(s) <= max) expect(out).toBe(s);
        else if (max > 4) expect(s.endsWith(out.slice('[…] '.length))).toBe(true);
      }),
    );
  });
});

describe('fitChunks', () => {
  const c = (from: number, n: number, ch = String.fromCharCode(97 + from)) => ({ from, text: ch.repeat(n) });

  it('keeps the latest chunks whole, in order, within the budget', () => {
    const f = fitChunks([c(0, 10), c(1, 10), c(2, 10)], 25);
    expect(f.included).toEqual([1, 2]);
    expect(f.dropped).toEqual([0]);
    expect(f.text).toBe(`${'b'.repeat(10)}\n\n${'c'.repeat(10)}`);
  });

  it('skips a chunk that does not fit but takes an earlier one that does', () => {
    const f = fitChunks([c(0, 3), c(1, 40), c(2, 10)], 20);
    expect(f.included).toEqual([0, 2]);
    expect(f.dropped).toEqual([1]);
  });

  it('never leaves the receiver with nothing: a single oversize chunk keeps its tail', () => {
    const f = fitChunks([c(0, 5), c(1, 100)], 30);
    expect(f.included).toEqual([1]);
    expect(len(f.text)).toBe(30);
  });

  it('stays within budget and accounts for every chunk exactly once', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }), { maxLength: 8 }), fc.nat(120), (texts, budget) => {
        const f = fitChunks(
          texts.map((text, from) => ({ from, text })),
          budget,
        );
        expect(len(f.text)).toBeLessThanOrEqual(budget);
        expect([...f.included, ...f.dropped].sort((a, b) => a - b)).toEqual(texts.map((_, i) => i));
        expect(f.included).toEqual([...f.included].sort((a, b) => a - b));
        // Everything fits: nothing is dropped and the text is the plain join.
        const whole = texts.join('\n\n');
        if (len(whole) <= budget) expect(f.text).toBe(whole);
      }),
      { numRuns: 400 },
    );
  });
});
