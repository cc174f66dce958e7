/**
 * OpenAI strict function schemas (`strict: true`) and the way back.
 *
 * Strict mode accepts a subset of JSON Schema and wants every object closed (`additionalProperties: false`) with
 * every property listed in `required`; an optional parameter is expressed as nullable. So the strict schema of a
 * tool makes optional parameters nullable, and a strict call's `null` for a parameter the original schema made
 * optional means "left out": `unstrictArguments` removes it before scoring, so the method is scored on the
 * original schema. Keywords strict mode has not always accepted (numeric and length bounds, pattern, format,
 * defaults) are dropped from the request; scoring still validates against the original schema.
 */

type Schema = Record<string, unknown>;
const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

const KEEP = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  'title',
]);

function nullable(s: Schema): Schema {
  if (Array.isArray(s.anyOf)) return { ...s, anyOf: [...s.anyOf, { type: 'null' }] };
  const out: Schema = { ...s };
  if (typeof s.type === 'string') out.type = s.type === 'null' ? 'null' : [s.type, 'null'];
  else if (Array.isArray(s.type)) out.type = s.type.includes('null') ? s.type : [...s.type, 'null'];
  else return { anyOf: [s, { type: 'null' }] };
  if (Array.isArray(s.enum) && !s.enum.includes(null)) out.enum = [...s.enum, null];
  return out;
}

function strictify(s: unknown): Schema {
  if (!isObj(s)) return {};
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) if (KEEP.has(k)) out[k] = v;
  if (Array.isArray(s.anyOf)) out.anyOf = s.anyOf.map(strictify);
  if (isObj(s.items)) out.items = strictify(s.items);
  const isObject = s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object')) || isObj(s.properties);
  if (isObject) {
    const props = isObj(s.properties) ? s.properties : {};
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    out.type = s.type ?? 'object';
    out.properties = Object.fromEntries(
      Object.entries(props).map(([k, v]) => [k, required.has(k) ? strictify(v) : nullable(strictify(v))]),
    );
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  return out;
}

/** The strict-mode version of a tool's parameters. */
export function strictToolSchema(parameters: Record<string, unknown> | undefined): Schema {
  return strictify(parameters ?? { type: 'object', properties: {} });
}

/** A strict call's arguments read back against the original schema: `null` for an optional parameter = absent. */
export function unstrictArguments(
  args: Record<string, unknown>,
  parameters: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const required = new Set(Array.isArray(parameters?.required) ? (parameters.required as string[]) : []);
  const props = isObj(parameters?.properties) ? parameters.properties : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (v === null && k in props && !required.has(k)) continue;
    out[k] = v;
  }
  return out;
}
