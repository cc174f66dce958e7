/**
 * What a JSON Schema handed to `toolgauge serve` (`json_schema`, `response_format`) may say: only what the grammar
 * (schema-gbnf.ts) enforces. A keyword the grammar would ignore would let through output that fails the schema
 * while the answer says 200, so it is refused, named by its path. Annotations that constrain nothing (title,
 * description, …) are accepted. Sizes are bounded too (nesting, enum values), before any grammar is built: a grammar
 * is built and compiled in proportion to them. Pure.
 */
import { MAX_ENUMERATED_INTS, MAX_ORDER_FREE, MAX_SCHEMA_DEPTH } from './schema-gbnf.ts';

/** Values one schema may list in its enums (all of them together), and their JSON text. */
export const MAX_ENUM_VALUES = 1024;
export const MAX_ENUM_BYTES = 64 * 1024;

type Schema = Record<string, unknown>;
const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$schema',
  '$id',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
const ENFORCED = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'anyOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
]);
const TYPES = new Set(['string', 'integer', 'number', 'boolean', 'null', 'array', 'object']);

/** Why the grammar cannot hold `schema` to its word (one line naming the path and keyword), or undefined. */
export function unenforcedSchema(schema: unknown, path: string): string | undefined {
  const budget = { values: 0, bytes: 0 };
  return walk(schema, path, 0, budget, true);
}

/**
 * Only the sizes (nesting, enum values): for schemas the server does not promise to enforce keyword by keyword (a
 * tool's parameters, which shape a call grammar), so that building their grammar stays small.
 */
export function oversizedSchema(schema: unknown, path: string): string | undefined {
  return walk(schema, path, 0, { values: 0, bytes: 0 }, false);
}

function walk(
  s: unknown,
  path: string,
  depth: number,
  budget: { values: number; bytes: number },
  strict: boolean,
): string | undefined {
  if (depth > MAX_SCHEMA_DEPTH)
    return `${path}: the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels (the limit of the grammar it becomes)`;
  if (typeof s === 'boolean' && !strict) return undefined;
  if (!isObj(s)) return strict ? `${path}: a schema must be an object` : undefined;
  for (const key of ['enum', 'const'] as const) {
    if (!(key in s)) continue;
    const values = key === 'enum' ? s.enum : [s.const];
    if (!Array.isArray(values)) return strict ? `${path}.enum: must be an array` : undefined;
    budget.values += values.length;
    budget.bytes += JSON.stringify(values).length;
    if (budget.values > MAX_ENUM_VALUES)
      return `${path}.${key}: more than ${MAX_ENUM_VALUES} enum values in one schema (the limit of the grammar it becomes)`;
    if (budget.bytes > MAX_ENUM_BYTES)
      return `${path}.${key}: enum values longer than ${MAX_ENUM_BYTES} bytes in one schema (the limit of the grammar it becomes)`;
  }
  if (strict) {
    for (const k of Object.keys(s))
      if (!ENFORCED.has(k) && !ANNOTATIONS.has(k))
        return `${path}: keyword '${k}' is not enforced by toolgauge serve's grammar (supported: ${[...ENFORCED].join(', ')})`;
    const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
    for (const t of types)
      if (typeof t !== 'string' || !TYPES.has(t)) return `${path}.type: ${JSON.stringify(t)} is not a JSON type`;
    const bounded = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].filter((k) => k in s);
    if (bounded.length && !('enum' in s) && !('const' in s)) {
      if (types.length !== 1 || types[0] !== 'integer' || !smallIntRange(s))
        return `${path}: keyword '${bounded[0]}' is enforced only on an integer range of at most ${MAX_ENUMERATED_INTS} values with both bounds`;
    }
    const props = isObj(s.properties) ? s.properties : undefined;
    if ('properties' in s && !props) return `${path}.properties: must be an object`;
    if (Array.isArray(s.required) && s.required.length && props && Object.keys(props).length > MAX_ORDER_FREE)
      return `${path}.required: enforced only on objects of at most ${MAX_ORDER_FREE} properties (this one has ${Object.keys(props).length})`;
    if (Array.isArray(s.required) && s.required.length && !props)
      return `${path}.required: enforced only with the properties it names declared`;
    if ('additionalProperties' in s && s.additionalProperties !== true && s.additionalProperties !== false && !props)
      return `${path}.additionalProperties: a schema for extra properties is not enforced (declare the properties)`;
    if ('items' in s && !isObj(s.items)) return `${path}.items: only one schema for every item is enforced`;
    if ('anyOf' in s && (!Array.isArray(s.anyOf) || s.anyOf.length === 0))
      return `${path}.anyOf: must be a non-empty array`;
  }
  const children: Array<[unknown, string]> = [];
  if (isObj(s.properties))
    for (const [k, v] of Object.entries(s.properties)) children.push([v, `${path}.properties.${k}`]);
  if ('items' in s) children.push([s.items, `${path}.items`]);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    if (Array.isArray(s[key])) s[key].forEach((v, i) => children.push([v, `${path}.${key}.${i}`]));
  if (isObj(s.additionalProperties)) children.push([s.additionalProperties, `${path}.additionalProperties`]);
  // A list of types is one more level of the grammar (a rule per type), as is each branch of a union.
  const next = depth + 1 + (Array.isArray(s.type) ? 1 : 0);
  for (const [child, at] of children) {
    const why = walk(child, at, next, budget, strict);
    if (why) return why;
  }
  return undefined;
}

function smallIntRange(s: Schema): boolean {
  const lo =
    typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : null;
  const hi =
    typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : null;
  if (typeof s.exclusiveMinimum === 'boolean' || typeof s.exclusiveMaximum === 'boolean') return false;
  return lo !== null && hi !== null && hi >= lo && hi - lo + 1 <= MAX_ENUMERATED_INTS;
}
