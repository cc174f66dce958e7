// Whether a value validates against a JSON Schema, answered by walking the schema instead of compiling it. Compiling
// (ajv generates and evals a function per schema) costs about a millisecond, and a catalog's schemas are mostly seen
// once (BFCL's cases each carry their own function docs), so for the keywords tool catalogs use the walk is much
// cheaper. It answers only where it reproduces ajv's generated code exactly (ajv 8, draft-07, strict: false,
// strictNumbers off, no $data, no useDefaults, no ownProperties); anything else is `undefined` and left to ajv.

/** Keywords this walk evaluates, each as ajv's code for it does. */
const SUPPORTED = new Set([
  'type',
  'enum',
  'required',
  'properties',
  'items',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maxItems',
  'minItems',
]);

const JSON_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);

/** ajv's loopEnum/loopRequired default: from this length on, an enum is compared with its deep `equal` throughout. */
const MAX_EXPRESSION = 200;

type Schema = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** ajv's checkDataType with strictNumbers off. */
function hasType(type: string, data: unknown): boolean {
  switch (type) {
    case 'null':
      return data === null;
    case 'array':
      return Array.isArray(data);
    case 'object':
      return isPlainObject(data);
    case 'integer':
      return typeof data === 'number' && !(data % 1) && !Number.isNaN(data);
    case 'number':
      return typeof data === 'number';
    default:
      return typeof data === type;
  }
}

/**
 * Whether every keyword of the schema (and its subschemas) is one the walk evaluates with a value ajv accepts, given
 * the set of keywords ajv knows (keywords it does not know it ignores, as the walk does).
 */
export function interpretable(schema: unknown, known: ReadonlySet<string>): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isPlainObject(schema)) return false;
  for (const key of Object.keys(schema)) {
    if (key.startsWith('$')) return false;
    if (!SUPPORTED.has(key)) {
      if (known.has(key)) return false;
      continue;
    }
    const v = schema[key];
    switch (key) {
      case 'type':
        if (typeof v === 'string' ? !JSON_TYPES.has(v) : !Array.isArray(v) || !v.every((t) => JSON_TYPES.has(t)))
          return false;
        break;
      case 'enum':
        // Object members are compared with a deep equality whose corner cases the walk does not take on.
        if (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x === 'object' && x !== null)) return false;
        break;
      case 'required':
        if (!Array.isArray(v) || !v.every((p) => typeof p === 'string')) return false;
        break;
      case 'properties':
        if (!isPlainObject(v)) return false;
        for (const [p, sub] of Object.entries(v)) if (p !== '__proto__' && !interpretable(sub, known)) return false;
        break;
      case 'items':
        // The array form (tuples, with additionalItems) is left to ajv.
        if (!interpretable(v, known)) return false;
        break;
      default:
        if (typeof v !== 'number') return false;
    }
  }
  return true;
}

/** Whether `data` validates against an interpretable schema (see `interpretable`), exactly as ajv decides. */
export function validates(schema: unknown, data: unknown): boolean {
  if (typeof schema === 'boolean') return schema;
  const s = schema as Schema;
  if (s.type !== undefined) {
    const types = typeof s.type === 'string' ? [s.type] : (s.type as string[]);
    if (types.length > 0 && !types.some((t) => hasType(t, data))) return false;
  }
  if (s.enum !== undefined) {
    const members = s.enum as unknown[];
    // Below ajv's loop threshold members are compared with ===; from it on with its equal, where NaN equals NaN.
    const loose = members.length >= MAX_EXPRESSION;
    if (!members.some((m) => m === data || (loose && Number.isNaN(m) && Number.isNaN(data)))) return false;
  }
  if (typeof data === 'number') {
    if (s.maximum !== undefined && (data > (s.maximum as number) || Number.isNaN(data))) return false;
    if (s.minimum !== undefined && (data < (s.minimum as number) || Number.isNaN(data))) return false;
    if (s.exclusiveMaximum !== undefined && (data >= (s.exclusiveMaximum as number) || Number.isNaN(data)))
      return false;
    if (s.exclusiveMinimum !== undefined && (data <= (s.exclusiveMinimum as number) || Number.isNaN(data)))
      return false;
  }
  if (Array.isArray(data)) {
    if (s.maxItems !== undefined && data.length > (s.maxItems as number)) return false;
    if (s.minItems !== undefined && data.length < (s.minItems as number)) return false;
    // By index, as ajv loops (a hole is undefined, not skipped).
    if (s.items !== undefined) for (let i = 0; i < data.length; i++) if (!validates(s.items, data[i])) return false;
  }
  if (isPlainObject(data)) {
    // ajv reads properties as data[p] (inherited ones included), as this does.
    const d = data as Record<string, unknown>;
    if (s.required !== undefined && (s.required as string[]).some((p) => d[p] === undefined)) return false;
    if (s.properties !== undefined) {
      for (const [p, sub] of Object.entries(s.properties as Schema)) {
        if (p === '__proto__' || d[p] === undefined) continue;
        if (!validates(sub, d[p])) return false;
      }
    }
  }
  return true;
}
