import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareArgs, compareValue, fuzzyEqual, parseIsoDatetime } from './rules.ts';

const reasons = (e: Record<string, unknown>, a: Record<string, unknown>, rules = {}) =>
  compareArgs(e, a, rules).map((m) => `${m.path}: ${m.reason}`);

describe('argument rules', () => {
  it('defaults: exact strings (trimmed), numbers within 1e-9 (numeric strings count), extra keys allowed, missing keys not', () => {
    expect(reasons({ a: 'Tokyo', n: 250 }, { a: ' Tokyo ', n: 250.0, extra: 1 })).toEqual([]);
    expect(reasons({ n: 250 }, { n: '250' })).toEqual([]);
    expect(reasons({ a: 'Tokyo' }, { a: 'tokyo' })).toEqual(['a: different value']);
    expect(reasons({ a: 'Tokyo', b: 1 }, { a: 'Tokyo' })).toEqual(['b: missing']);
    expect(reasons({ n: 250 }, { n: 250.1 })).toEqual(['n: 250.1 is not 250']);
    expect(reasons({ b: true }, { b: 'true' })).toEqual([]);
    expect(reasons({ b: true }, { b: 1 })).toHaveLength(1);
  });

  it('equivalents, case-folding and optional arguments', () => {
    const rules = { location: { equiv: ['Tokyo, Japan'], casefold: true }, unit: { optional: true } };
    expect(reasons({ location: 'Tokyo', unit: 'celsius' }, { location: 'TOKYO, japan' }, rules)).toEqual([]);
    expect(reasons({ location: 'Tokyo' }, { location: 'Kyoto' }, rules)).toEqual([
      'location: different value (and none of 1 equivalents)',
    ]);
    // Toolhound's equivalents are exact unless casefold is asked for.
    expect(reasons({ to: 'EUR' }, { to: 'euros' }, { to: { equiv: ['euros'] } })).toEqual([]);
    expect(reasons({ to: 'EUR' }, { to: 'Euros' }, { to: { equiv: ['euros'] } })).toHaveLength(1);
  });

  it('numeric tolerance', () => {
    expect(reasons({ t: 21 }, { t: 21.04 }, { t: { tolerance: 0.05 } })).toEqual([]);
    expect(reasons({ t: 21 }, { t: 21.2 }, { t: { tolerance: 0.05 } })).toEqual(['t: 21.2 is not 21 ± 0.05']);
  });

  it('set match for arrays (and order matters without it); casefold and rules reach nested values', () => {
    const rules = { attendees: { match: 'set' as const, casefold: true } };
    expect(
      reasons({ attendees: ['a@x.example', 'b@x.example'] }, { attendees: ['B@x.example', 'a@x.example'] }, rules),
    ).toEqual([]);
    expect(reasons({ attendees: ['a', 'b'] }, { attendees: ['b', 'a'] })).toHaveLength(1);
    expect(reasons({ attendees: ['a', 'a'] }, { attendees: ['a', 'b'] }, rules)).toHaveLength(1);
    const items = { items: { match: 'set' as const }, 'items[].name': { casefold: true } };
    expect(
      reasons(
        {
          items: [
            { name: 'Eggs', quantity: 2 },
            { name: 'Apples', quantity: 3 },
          ],
        },
        {
          items: [
            { name: 'apples', quantity: 3 },
            { name: 'eggs', quantity: 2 },
          ],
        },
        items,
      ),
    ).toEqual([]);
    expect(
      reasons({ items: [{ name: 'Eggs', quantity: 2 }] }, { items: [{ name: 'eggs', quantity: 3 }] }, items),
    ).toHaveLength(1);
    expect(
      reasons(
        { customer: { name: 'Ines Costa', email: 'I@x' } },
        { customer: { name: 'ines costa', email: 'i@x' } },
        { 'customer.name': { casefold: true }, 'customer.email': { casefold: true } },
      ),
    ).toEqual([]);
    expect(reasons({ customer: { name: 'Ines' } }, { customer: 'Ines' })).toEqual([
      'customer: expected an object, got "Ines"',
    ]);
  });

  it('ISO datetimes: timezone required means the same instant in any offset; naive values compare the wall clock', () => {
    const tz = { at: { datetime: 'minute' as const, timezone: 'required' as const } };
    expect(reasons({ at: '2026-03-21T18:00:00+01:00' }, { at: '2026-03-21T17:00Z' }, tz)).toEqual([]);
    expect(reasons({ at: '2026-03-21T18:00:00+01:00' }, { at: '2026-03-21T18:00:59+01:00' }, tz)).toEqual([]);
    expect(reasons({ at: '2026-03-21T18:00:00+01:00' }, { at: '2026-03-21T18:00:00' }, tz)).toEqual([
      'at: no timezone offset',
    ]);
    expect(reasons({ at: '2026-03-21T18:00:00+01:00' }, { at: '2026-03-21T18:00:00+02:00' }, tz)).toEqual([
      'at: a different instant',
    ]);
    // Toolhound's normalize: iso8601_minute on a naive expected value.
    const th = { at: { normalize: 'iso8601_minute' as const } };
    expect(reasons({ at: '2026-03-21T18:00:00' }, { at: '2026-03-21 18:00' }, th)).toEqual([]);
    expect(reasons({ at: '2026-03-21T18:00:00' }, { at: '2026-03-21T18:00:00-07:00' }, th)).toEqual([]);
    expect(reasons({ at: '2026-03-21T18:00:00' }, { at: 'tomorrow 6pm' }, th)).toEqual([
      'at: "tomorrow 6pm" is not ISO 8601',
    ]);
    expect(
      reasons({ d: '2026-03-21' }, { d: '2026-03-21T23:00:00+05:00' }, { d: { datetime: 'day' as const } }),
    ).toEqual([]);
    expect(parseIsoDatetime('2026-13-01')).toBeNull();
  });

  it('fuzzy text (Toolhound "semantic"): normalised token overlap, deterministic', () => {
    expect(fuzzyEqual("let's meet at noon", "Let's meet at noon!")).toBe(true);
    expect(fuzzyEqual('the latest SpaceX launch date', 'latest SpaceX launch date')).toBe(true);
    expect(fuzzyEqual('call the dentist', 'Call dentist')).toBe(true);
    expect(fuzzyEqual('call the dentist', 'zzz wrong value')).toBe(false);
    expect(fuzzyEqual('running ten minutes late', 'I will be on time')).toBe(false);
    expect(compareValue('call mom', 42, 'text', { text: { match: 'semantic' } })?.reason).toBe(
      'expected text, got number',
    );
  });

  it('property: any JSON arguments match themselves under every rule-free comparison, and a changed leaf does not', () => {
    const leaf = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), tie('v'), { maxKeys: 3 }),
      ),
    })).v;
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), value, { maxKeys: 4 }), (args) => {
        expect(compareArgs(args, structuredClone(args))).toEqual([]);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 6 }), fc.integer(), (k, n) => {
        expect(compareArgs({ [k]: n }, { [k]: n + 1 })).toHaveLength(1);
      }),
    );
  });
});
