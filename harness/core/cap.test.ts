import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capStrings, capText } from './cap.ts';
import { DepthError, MAX_NESTING } from './depth.ts';
import { stableStringify } from './hash.ts';

describe('bounded stored content', () => {
  it('cuts long strings anywhere in a value, keeping the original length in the marker', () => {
    const big = 'y'.repeat(5000);
    const v = capStrings({ a: big, b: [1, { c: big }], d: 'short', e: null }, 100);
    expect(v.a).toBe(`${'y'.repeat(100)}… [truncated: 5000 characters]`);
    expect((v.b[1] as { c: string }).c.length).toBeLessThan(140);
    expect(v.d).toBe('short');
    expect(v.e).toBeNull();
  });
  it('never grows a string beyond max plus the marker, and leaves short ones unchanged', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.integer({ min: 1, max: 200 }), (s, max) => {
        const c = capText(s, max);
        if (s.length <= max) expect(c).toBe(s);
        else expect(c.startsWith(s.slice(0, max)) && c.length <= max + 40).toBe(true);
      }),
    );
  });
  it('keeps a data key such as __proto__', () => {
    const v = capStrings(JSON.parse('{"__proto__": "x"}') as Record<string, unknown>, 10);
    expect(Object.keys(v)).toEqual(['__proto__']);
  });
  it('refuses a value nested deeper than the bound with a DepthError (never a stack overflow); the bound itself is fine', () => {
    const nest = (n: number) => JSON.parse(`${'['.repeat(n)}"x"${']'.repeat(n)}`) as unknown;
    for (const walk of [(v: unknown) => capStrings(v, 10), (v: unknown) => stableStringify(v)]) {
      expect(() => walk(nest(5000))).toThrow(DepthError);
      expect(() => walk(nest(5000))).toThrow(/nested deeper than 256 levels/);
      expect(() => walk(nest(MAX_NESTING))).not.toThrow();
    }
  });
});
