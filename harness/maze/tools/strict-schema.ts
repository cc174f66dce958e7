// Whether ajv in strict mode (draft-07, the library's options) would accept a JSON Schema, decided by walking it
// instead of compiling it. Compiling generates and evals a function per schema and costs about as much as the rest
// of loading the tool library; a tool's schemas use a handful of keywords. The walk answers `true` only for schemas
// made of those keywords, with values the meta-schema accepts and types strict mode asks for; anything else is
// `false`, meaning "not known here": the caller compiles it with ajv, whose error is the one reported.

type Schema = Record<string, unknown>;

const JSON_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);

/**
 * The keywords the walk takes, each with the data types strict mode requires `type` to name for it (ajv's
 * strictTypes: "missing type … for keyword …"); an empty list applies to every type.
 */
const KEYWORD_TYPES: Record<string, readonly string[]> = {
  type: [],
  description: [],
  title: [],
  default: [],
  enum: [],
  properties: ['object'],
  required: ['object'],
  additionalProperties: ['object'],
  items: ['array'],
  minItems: ['array'],
  maxItems: ['array'],
  pattern: ['string'],
  minLength: ['string'],
  maxLength: ['string'],
  minimum: ['number'],
  maximum: ['number'],
  exclusiveMinimum: ['number'],
  exclusiveMaximum: ['number'],
};

const isPlainObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** A pattern as ajv builds it (unicode flag): one it cannot build fails its compile. */
function isPattern(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    new RegExp(v, 'u');
    return true;
  } catch {
    return false;
  }
}

/** Whether every member is a distinct string, number, boolean or null (the meta-schema's uniqueItems). */
function distinctScalars(v: unknown[]): boolean {
  const seen = new Set<unknown>();
  for (const x of v) {
    if (typeof x === 'object' && x !== null) return false;
    if (typeof x === 'number' && !Number.isFinite(x)) return false;
    if (seen.has(x)) return false;
    seen.add(x);
  }
  return true;
}

function keywordValueOk(key: string, v: unknown, s: Schema): boolean {
  switch (key) {
    case 'type':
      // one type only: unions are left to ajv (strict mode refuses most of them)
      return typeof v === 'string' && JSON_TYPES.has(v);
    case 'description':
    case 'title':
      return typeof v === 'string';
    case 'default':
      return true;
    case 'enum':
      return Array.isArray(v) && v.length > 0 && distinctScalars(v);
    case 'properties':
      if (!isPlainObject(v)) return false;
      for (const [p, sub] of Object.entries(v)) if (p === '__proto__' || !acceptsStrict(sub)) return false;
      return true;
    case 'required': {
      // strictRequired: every required property is one of `properties`
      const props = s.properties;
      return (
        Array.isArray(v) &&
        v.every((p) => typeof p === 'string' && isPlainObject(props) && Object.hasOwn(props, p)) &&
        new Set(v).size === v.length
      );
    }
    case 'additionalProperties':
    case 'items':
      // `items` as a list (tuples) is left to ajv
      return acceptsStrict(v);
    case 'pattern':
      return isPattern(v);
    case 'minItems':
    case 'maxItems':
    case 'minLength':
    case 'maxLength':
      return isCount(v);
    default:
      return typeof v === 'number' && Number.isFinite(v);
  }
}

/**
 * `true`: ajv with `strict: true` compiles this schema without error. `false`: the walk does not know (an unknown
 * keyword, a value the meta-schema refuses, a `$ref`, a union type, …); compile it with ajv to learn why.
 */
export function acceptsStrict(schema: unknown): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isPlainObject(schema)) return false;
  const type = schema.type;
  for (const key of Object.keys(schema)) {
    const types = Object.hasOwn(KEYWORD_TYPES, key) ? KEYWORD_TYPES[key]! : undefined;
    if (!types || !keywordValueOk(key, schema[key], schema)) return false;
    if (types.length && !types.some((t) => t === type || (t === 'number' && type === 'integer'))) return false;
  }
  return true;
}
