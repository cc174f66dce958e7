import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtinTools } from './index.ts';
import { TOOL_SCHEMA_AJV } from './library.ts';
import { acceptsStrict } from './strict-schema.ts';

// The oracle: ajv's compile under the library's options, of a copy: ajv caches a schema by its object before it
// checks it against the meta-schema, so a second compile of the same object would skip that check.
const ajv = new Ajv(TOOL_SCHEMA_AJV);
function ajvAccepts(schema: unknown): boolean {
  try {
    ajv.compile(structuredClone(schema) as object);
    return true;
  } catch {
    return false;
  }
}

const TYPES = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'] as const;
const PROPS = ['a', 'b', 'c'];
const scalar = fc.constantFrom<unknown>(0, 1, -2.5, '', 'a', 'b', true, false, null);
const pattern = fc.constantFrom('^a$', '\\d+', '^\\d{4}-\\d{2}$', '(', '\\-', '[a-', 'a{2,1}', '\\p{L}');

/** Keywords by the type they apply to, with values the meta-schema allows (patterns may still not build). */
const byType = (sub: fc.Arbitrary<unknown>): Record<string, Record<string, fc.Arbitrary<unknown>>> => ({
  any: {
    description: fc.string({ maxLength: 3 }),
    title: fc.string({ maxLength: 3 }),
    default: scalar,
    enum: fc.array(scalar, { minLength: 1, maxLength: 3 }),
  },
  object: {
    properties: fc.dictionary(fc.constantFrom(...PROPS), sub, { maxKeys: 3 }),
    required: fc.uniqueArray(fc.constantFrom(...PROPS), { maxLength: 2 }),
    additionalProperties: sub,
  },
  array: { items: sub, minItems: fc.nat(3), maxItems: fc.nat(3) },
  string: { pattern, minLength: fc.nat(3), maxLength: fc.nat(3) },
  number: {
    minimum: fc.integer({ min: -3, max: 3 }),
    maximum: fc.double({ min: -3, max: 3, noNaN: true }),
    exclusiveMinimum: fc.integer({ min: -3, max: 3 }),
    exclusiveMaximum: fc.double({ min: -3, max: 3, noNaN: true }),
  },
});
const groupOf = (t: string | undefined) => (t === 'integer' ? 'number' : t);

/**
 * Schemas of the keywords the walk takes, every value of a type the meta-schema allows: mostly keywords of their
 * `type`, but at times one of another type's or no `type` at all, `required` naming a property not given, repeated
 * enum members, patterns that do not build. On these the walk must decide exactly as ajv does.
 */
const { known } = fc.letrec<{ known: unknown }>((tie) => {
  const kw = byType(tie('known'));
  const all = Object.assign({}, ...Object.values(kw)) as Record<string, fc.Arbitrary<unknown>>;
  return {
    known: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.boolean(),
      fc
        .option(fc.constantFrom(...TYPES), { freq: 6 })
        .chain((type) =>
          fc.tuple(
            fc.constant(type),
            fc.record({ ...kw.any, ...(kw[groupOf(type ?? '') ?? ''] ?? {}) }, { requiredKeys: [] }),
            fc.option(
              fc.constantFrom(...Object.keys(all)).chain((k) => all[k]!.map((v) => ({ [k]: v }))),
              { freq: 4 },
            ),
          ),
        )
        .map(([type, own, foreign]) => ({ ...(type ? { type } : {}), ...own, ...foreign })),
    ),
  };
});

/** Anything else too: unknown keywords, misspelt types, values of the wrong kind, `$ref`s, union types, tuples. */
const KEYWORDS = ['type', ...Object.keys(Object.assign({}, ...Object.values(byType(fc.constant(true)))))];
const OTHERS = ['optional', 'format', 'nullable', 'anyOf', '$ref', 'const', 'examples', 'x-order', 'additionalItems'];
const key = fc.constantFrom(...KEYWORDS, ...OTHERS, 'toString', '__proto__');
const wrong = fc.oneof(
  scalar,
  fc.constantFrom<unknown>('strin', 'int', ['string', 'null'], ['string', 'number'], [], {}, [1, 2], -1, 1.5, NaN),
);
const { any } = fc.letrec<{ any: unknown }>((tie) => ({
  any: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('known'),
    scalar,
    // a schema with keywords added or replaced
    fc
      .tuple(
        tie('known'),
        fc.dictionary(key, fc.oneof(wrong, tie('any'), fc.array(tie('any'), { maxLength: 2 })), { maxKeys: 2 }),
      )
      .map(([base, over]) => (typeof base === 'object' && base !== null ? { ...base, ...over } : over)),
    // one keyword holding a value of the wrong kind, beside a type
    fc.tuple(fc.constantFrom(...TYPES), key, wrong).map(([type, k, v]) => ({ type, [k]: v })),
  ),
  known,
}));

describe('deciding a tool schema without compiling it', () => {
  it('accepts a schema of its keywords exactly when a strict ajv compile does', () => {
    fc.assert(
      fc.property(known, (s) => {
        expect(acceptsStrict(s)).toBe(ajvAccepts(s));
      }),
      { numRuns: 400 },
    );
  });

  it('never accepts a schema a strict ajv compile refuses, whatever it holds', () => {
    let accepted = 0;
    fc.assert(
      fc.property(any, (s) => {
        if (acceptsStrict(s)) {
          accepted++;
          expect(ajvAccepts(s)).toBe(true);
        }
      }),
      { numRuns: 600 },
    );
    // the property says something only if the walk accepts some of them
    expect(accepted).toBeGreaterThan(50);
  });

  it("accepts the built-in tools' kind of schema, and leaves to ajv what it does not know", () => {
    const tool = {
      type: 'object',
      properties: {
        date: { type: 'string', description: 'Day (YYYY-MM-DD)', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } },
        qty: { type: 'integer', minimum: 1 },
      },
      required: ['date', 'qty'],
      additionalProperties: false,
    };
    expect(acceptsStrict(tool)).toBe(true);
    // ajv accepts these too, but the walk does not know them: they are compiled
    expect(acceptsStrict({ ...tool, properties: { a: { type: ['string', 'null'] } }, required: [] })).toBe(false);
    expect(acceptsStrict({ ...tool, $id: 'x' })).toBe(false);
  });

  it('takes every schema of the built-in library (none of them is compiled when the library loads)', () => {
    const compiled = builtinTools().flatMap((t) =>
      [t.parameters, t.output].filter((s) => !acceptsStrict(s)).map((s) => `${t.name}: ${JSON.stringify(s)}`),
    );
    expect(compiled).toEqual([]);
  });
});
