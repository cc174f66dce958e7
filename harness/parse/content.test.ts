import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentOf } from './content.ts';

// contentOf removes the union of the spans (one span, spans in order and spans out of order take different paths).
// The oracle marks every removed position and keeps the rest; the frame markup pass is the same call without spans.
function byMask(text: string, spans: Array<[number, number]>): string {
  const gone = new Array<boolean>(text.length).fill(false);
  for (const [a, b] of spans) for (let i = Math.max(0, a); i < Math.min(b, text.length); i++) gone[i] = true;
  let out = '';
  for (let i = 0; i < text.length; i++) if (!gone[i]) out += text[i];
  return out;
}

const textArb = fc.string({
  unit: fc.constantFrom('a', 'b', ' ', '\n', '<', '|', 'e', 'n', 'd', '>', '<|end|>', '</s>'),
  maxLength: 40,
});
const spanArb = fc
  .tuple(fc.integer({ min: -2, max: 45 }), fc.nat({ max: 12 }))
  .map(([a, n]): [number, number] => [a, a + n]);

describe('contentOf', () => {
  it('removes exactly the union of the spans, whatever their number and order', () => {
    fc.assert(
      fc.property(textArb, fc.array(spanArb, { maxLength: 5 }), (text, spans) => {
        expect(contentOf(text, spans)).toBe(contentOf(byMask(text, spans), []));
      }),
      { numRuns: 2000 },
    );
  });
});
