import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repeatedUnit } from './repetition.ts';

describe('degenerate repetition', () => {
  it('finds a unit repeated back to back inside any surrounding text (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60 }),
        fc.string({ minLength: 2, maxLength: 12 }),
        fc.integer({ min: 12, max: 40 }),
        fc.string({ maxLength: 60 }),
        (pre, unit, k, post) => {
          fc.pre(unit.length * k >= 64);
          const r = repeatedUnit(`${pre}${unit.repeat(k)}${post}`);
          expect(r).not.toBeNull();
          // the stretch it reports is a genuine repetition of its unit
          expect(r!.times).toBeGreaterThanOrEqual(8);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a looping argument in a call is found; ordinary calls, prose and short rules are not', () => {
    const loop = `<tool_call>\n{"name": "send_email", "arguments": {"body": "${'Thanks again '.repeat(30)}`;
    expect(repeatedUnit(loop)?.unit.trim()).toMatch(/Thanks again|again Thanks/);
    expect(
      repeatedUnit(
        '<tool_call>\n{"name": "get_weather", "arguments": {"location": "Oslo, Norway", "unit": "celsius"}}\n</tool_call>',
      ),
    ).toBeNull();
    expect(
      repeatedUnit(
        'I would be happy to help. Let me check the weather for you in Oslo and in Bergen, and then in Trondheim as well.',
      ),
    ).toBeNull();
    expect(repeatedUnit('----------\nA table rule.')).toBeNull();
    expect(repeatedUnit('')).toBeNull();
  });
});
