import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonish, readJsonValue } from './jsonish.ts';

function jsonParse(s: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

describe('jsonish reader, json mode', () => {
  it('agrees with JSON.parse on valid JSON text', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), (s) => {
        const r = parseJsonish(s, 'json');
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.value).toEqual(JSON.parse(s));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with JSON.parse on arbitrary and damaged text (accepts exactly the same strings)', () => {
    const damaged = fc
      .tuple(fc.json({ maxDepth: 3 }), fc.nat(), fc.constantFrom('', ',', "'", '}', ']', 'True', '\n', '\\', '"', ' '))
      .map(([s, k, ins]) => {
        const at = s.length === 0 ? 0 : k % s.length;
        return s.slice(0, at) + ins + s.slice(at + (k % 2));
      });
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), damaged), (s) => {
        const mine = parseJsonish(s, 'json');
        const ref = jsonParse(s);
        expect(mine.ok, JSON.stringify(s)).toBe(ref.ok);
        if (mine.ok && ref.ok) expect(mine.value).toEqual(ref.value);
      }),
      { numRuns: 1000 },
    );
  });

  it('reports where a value ends inside a larger text', () => {
    const text = 'x {"a": "}", "b": [1, {"c": null}]} tail';
    const r = readJsonValue(text, 2, 'json');
    expect(r.ok && text.slice(r.end)).toBe(' tail');
  });

  it('keeps a __proto__ key as data, like JSON.parse', () => {
    const r = parseJsonish('{"__proto__": {"polluted": 1}}', 'json');
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
      expect(Object.keys(r.value as object)).toEqual(['__proto__']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });

  it('marks truncation only when the text ends inside the value', () => {
    expect(readJsonValue('{"a": [1, 2', 0, 'json')).toMatchObject({ ok: false, truncated: true });
    expect(readJsonValue('{"a": "x', 0, 'json')).toMatchObject({ ok: false, truncated: true });
    expect(readJsonValue('{"a": tr', 0, 'json')).toMatchObject({ ok: false, truncated: true });
    expect(readJsonValue('{"a": x}', 0, 'json')).toMatchObject({ ok: false, truncated: false });
  });
});

describe('jsonish reader, loose mode', () => {
  const cases: Array<[string, unknown, string[]]> = [
    ["{'a': 'it\\'s'}", { a: "it's" }, ['single quotes']],
    ['{"a": True, "b": None, "c": False}', { a: true, b: null, c: false }, ['python literals']],
    ['{"a": [1, 2,], }', { a: [1, 2] }, ['trailing commas']],
    ['{a: 1, b_c: "x"}', { a: 1, b_c: 'x' }, ['unquoted keys']],
    ['{"a": "line\nbreak"}', { a: 'line\nbreak' }, ['raw control characters in strings']],
    ['{"a": +1, "b": .5, "c": 5.}', { a: 1, b: 0.5, c: 5 }, ['non-JSON number']],
  ];
  for (const [src, value, notes] of cases) {
    it(`repairs ${notes.join(', ')}`, () => {
      const repairs = new Set<string>();
      const r = parseJsonish(src, 'loose', repairs);
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.value).toEqual(value);
      for (const n of notes) expect(repairs).toContain(n);
      expect(parseJsonish(src, 'json').ok).toBe(false);
    });
  }

  it('accepts everything json mode accepts, with the same value and no repairs', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 4 }), (s) => {
        const repairs = new Set<string>();
        const r = parseJsonish(s, 'loose', repairs);
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.value).toEqual(JSON.parse(s));
        expect([...repairs]).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
