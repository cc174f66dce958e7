import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OpenAITool } from '../../core/chat.ts';
import { AJV_KEYWORDS, AJV_OPTIONS, formatAjvError, schemaErrors } from './schema.ts';
import { interpretable, validates, walkErrors } from './schema-interpret.ts';

// The walk must decide exactly as a fresh ajv compile (the options schema.ts uses) does, for every schema it accepts.
const options = AJV_OPTIONS;
const KNOWN = new Set(Object.keys(new Ajv(options).RULES.all));
const compiled = (schema: unknown) => new Ajv(options).compile(schema as object);
/** A compiled validator's errors for data, as schemaErrors words them. */
function ajvErrors(v: ValidateFunction, data: unknown): string[] {
  v(data);
  return (v.errors ?? []).map((e) => formatAjvError('f', e));
}
const walked = (schema: unknown, data: unknown) =>
  walkErrors(schema, data).map((e) => `f${e.instancePath ? ` ${e.instancePath}` : ''}: ${e.message}`);

const TYPES = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'] as const;
const PROPS = ['a', 'b', 'toString', 'constructor', '__proto__'];
const scalar = fc.oneof(
  fc.constantFrom(0, -0, 1, 1.5, -2, 1e21, Number.NaN, Infinity, '', 'a', 'b', true, false, null),
  fc.integer({ min: -5, max: 5 }),
);
const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean(),
    fc.record(
      {
        type: fc.oneof(fc.constantFrom(...TYPES), fc.uniqueArray(fc.constantFrom(...TYPES), { maxLength: 3 })),
        enum: fc.array(scalar, { minLength: 1, maxLength: 4 }),
        required: fc.uniqueArray(fc.constantFrom(...PROPS), { maxLength: 3 }),
        properties: fc.dictionary(fc.constantFrom(...PROPS), tie('schema'), { maxKeys: 3 }),
        items: tie('schema'),
        maximum: fc.integer({ min: -3, max: 3 }),
        minimum: fc.integer({ min: -3, max: 3 }),
        exclusiveMaximum: fc.integer({ min: -3, max: 3 }),
        exclusiveMinimum: fc.integer({ min: -3, max: 3 }),
        maxItems: fc.nat(3),
        minItems: fc.nat(3),
        description: fc.string(),
        default: scalar,
        optional: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  ),
}));
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...PROPS), tie('value'), { maxKeys: 4 }),
  ),
}));

describe('validating by walking the schema', () => {
  it("knows ajv's keywords without loading ajv", () => {
    expect([...AJV_KEYWORDS].sort()).toEqual([...KNOWN].sort());
  });

  it('decides every value as a fresh ajv compile of the same schema does', () => {
    fc.assert(
      fc.property(schema, fc.array(value, { minLength: 1, maxLength: 5 }), (s, values) => {
        expect(interpretable(s, KNOWN)).toBe(true);
        const v = compiled(s);
        for (const x of values) expect(validates(s, x)).toBe(v(x));
      }),
      { numRuns: 300 },
    );
  });

  it('reports the errors a fresh ajv compile reports, in its order', () => {
    fc.assert(
      fc.property(schema, fc.array(value, { minLength: 1, maxLength: 5 }), (s, values) => {
        const v = compiled(s);
        for (const x of values) {
          const errors = walked(s, x);
          expect(errors).toEqual(ajvErrors(v, x));
          expect(errors.length === 0).toBe(validates(s, x));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("orders a type error as ajv does: up front, or in its type's place when the schema has keywords for it", () => {
    for (const [s, x] of [
      [{ type: 'object', enum: [1], required: ['a'] }, 'x'],
      [{ type: 'string', enum: [1] }, 2],
      [{ type: 'integer', maximum: 1, enum: [7] }, 2.5],
      [{ type: ['array', 'null'], minItems: 2, items: { type: 'string' } }, [1]],
      [{ properties: { 'a/b~': { type: 'string' } }, required: ['c'] }, { 'a/b~': 1 }],
    ] as const) {
      const errors = walked(s, x);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors).toEqual(ajvErrors(compiled(s), x));
    }
  });

  it('leaves to ajv the keywords and values it does not reproduce', () => {
    for (const s of [
      { type: 'float' },
      { type: 'string', format: 'date' },
      { type: 'string', minLength: 2 },
      { items: [{ type: 'string' }] },
      { enum: [{ a: 1 }] },
      { enum: [] },
      { required: 'a' },
      { maximum: '3' },
      { $ref: '#/definitions/x' },
      { properties: { a: { additionalProperties: false } } },
      { type: 'object', nullable: true },
      'string',
    ])
      expect(interpretable(s, KNOWN), JSON.stringify(s)).toBe(false);
    // Keys ajv does not know are ignored by both.
    expect(interpretable({ type: 'object', optional: true, default: 3 }, KNOWN)).toBe(true);
  });
});

describe('schemaErrors', () => {
  const tool = (parameters: Record<string, unknown>): OpenAITool => ({
    type: 'function',
    function: { name: 'f', parameters },
  });
  const call = (args: Record<string, unknown>) => ({ name: 'f', arguments: args });

  it('reads a schema as it is at each call: one changed in place since an earlier call is not answered stale', () => {
    const parameters: Record<string, unknown> = {
      type: 'object',
      properties: { n: { type: 'integer' } },
      required: ['n'],
    };
    const tools = [tool(parameters)];
    expect(schemaErrors(call({ n: 1 }), tools)).toEqual([]);
    expect(schemaErrors(call({ n: 'x' }), tools)).toEqual(['f /n: must be integer']);
    parameters.properties = { n: { type: 'string' } };
    expect(schemaErrors(call({ n: 'x' }), tools)).toEqual([]);
    expect(schemaErrors(call({ n: 1 }), tools)).toEqual(['f /n: must be string']);
    // The same for a schema the walk leaves to ajv's compiled (and cached) validators.
    parameters.properties = { n: { type: 'string', minLength: 2 } };
    expect(schemaErrors(call({ n: 'x' }), tools)).toEqual(['f /n: must NOT have fewer than 2 characters']);
    parameters.properties = { n: { type: 'string', minLength: 1 } };
    expect(schemaErrors(call({ n: 'x' }), tools)).toEqual([]);
  });

  it('two tools sharing a schema get the verdicts and errors of a fresh compile', () => {
    const shared = { type: 'object', properties: { q: { type: 'string', enum: ['x', 'y'] } }, required: ['q'] };
    const a = [tool(structuredClone(shared))];
    const b = [tool(structuredClone(shared))];
    const fresh = new Ajv(options).compile(shared);
    for (const args of [{ q: 'x' }, { q: 'z' }, {}, { q: 3 }]) {
      fresh(args);
      const expected = (fresh.errors ?? []).map(
        (e) => `f${e.instancePath ? ` ${e.instancePath}` : ''}: ${e.message ?? 'invalid'}`,
      );
      expect(schemaErrors(call(args), a)).toEqual(expected);
      expect(schemaErrors(call(args), b)).toEqual(expected);
    }
  });
});
