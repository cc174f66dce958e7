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

/** One validation error as ajv reports it (the fields schemaErrors reads). */
export interface WalkError {
  instancePath: string;
  message: string;
}

// The keywords of each data type's group in ajv's rules, in ajv's order (validation vocabulary, then applicator).
const GROUPS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['number', ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum']],
  ['string', []],
  ['array', ['maxItems', 'minItems', 'items']],
  ['object', ['required', 'properties']],
];
const LIMITS: Record<string, [string, (x: number, limit: number) => boolean]> = {
  maximum: ['<=', (x, l) => x > l],
  minimum: ['>=', (x, l) => x < l],
  exclusiveMaximum: ['<', (x, l) => x >= l],
  exclusiveMinimum: ['>', (x, l) => x <= l],
};
const pointer = (p: string) => p.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * ajv's errors (allErrors) for `data` against an interpretable schema, in ajv's order: a type check up front unless
 * the schema has keywords for its one type, then the untyped keywords (enum), then each type's keywords, where a
 * one-type schema's type error takes the place of its type's keywords.
 */
export function walkErrors(schema: unknown, data: unknown, path = '', out: WalkError[] = []): WalkError[] {
  if (typeof schema === 'boolean') {
    if (!schema) out.push({ instancePath: path, message: 'boolean schema is false' });
    return out;
  }
  const s = schema as Schema;
  const types = s.type === undefined ? [] : typeof s.type === 'string' ? [s.type] : (s.type as string[]);
  const used = (group: string) => GROUPS.find(([g]) => g === group)?.[1].some((k) => s[k] !== undefined) ?? false;
  const typeError = () => out.push({ instancePath: path, message: `must be ${String(s.type)}` });
  const upFront = types.length > 0 && !(types.length === 1 && used(types[0]!));
  if (upFront && !types.some((t) => hasType(t, data))) typeError();
  if (s.enum !== undefined && !validates({ enum: s.enum }, data))
    out.push({ instancePath: path, message: 'must be equal to one of the allowed values' });
  for (const [group, keywords] of GROUPS) {
    if (!keywords.some((k) => s[k] !== undefined)) continue;
    if (!hasType(group, data)) {
      if (!upFront && types.length === 1 && types[0] === group) typeError();
      continue;
    }
    for (const k of keywords) {
      if (s[k] === undefined) continue;
      if (k in LIMITS) {
        const [op, fails] = LIMITS[k]!;
        const limit = s[k] as number;
        const x = data as number;
        if (fails(x, limit) || Number.isNaN(x)) out.push({ instancePath: path, message: `must be ${op} ${limit}` });
      } else if (k === 'maxItems' || k === 'minItems') {
        const limit = s[k] as number;
        const n = (data as unknown[]).length;
        if (k === 'maxItems' ? n > limit : n < limit)
          out.push({
            instancePath: path,
            message: `must NOT have ${k === 'maxItems' ? 'more' : 'fewer'} than ${limit} items`,
          });
      } else if (k === 'items') {
        const xs = data as unknown[];
        for (let i = 0; i < xs.length; i++) walkErrors(s.items, xs[i], `${path}/${i}`, out);
      } else if (k === 'required') {
        const d = data as Record<string, unknown>;
        for (const p of s.required as string[])
          if (d[p] === undefined) out.push({ instancePath: path, message: `must have required property '${p}'` });
      } else {
        const d = data as Record<string, unknown>;
        for (const [p, sub] of Object.entries(s.properties as Schema))
          if (p !== '__proto__' && d[p] !== undefined) walkErrors(sub, d[p], `${path}/${pointer(p)}`, out);
      }
    }
  }
  return out;
}
