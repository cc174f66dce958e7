/**
 * Typing the raw text values of XML-style call formats (Qwen3-Coder/Qwen3.5, Seed-OSS, MiniMax-M2, GLM,
 * DeepSeek DSML, MiniCPM), where a parameter's text says nothing about its type and the tool schema decides —
 * the way the serving frameworks' parsers do it.
 *
 * `schemaTyped` (Qwen3-Coder, Seed-OSS, MiniMax, MiniCPM, DSML without a `string` attribute):
 *   - no schema for the parameter (tool or parameter unknown, no tools given) → the text as is;
 *   - `null`/`None` → null when the schema allows null, or when no type of it is a string;
 *   - the schema's types (`type` string or list, `anyOf`/`oneOf` members, `enum` values; the non-standard
 *     `float`, `int`, `bool`, `dict`, `list` … read as their JSON Schema types) are tried in the order integer,
 *     number, boolean, object, array, string; the first conversion that succeeds wins, so a union such as
 *     `["string", "integer"]` gives 42 for `42` and the text for `abc`;
 *   - integer / number follow Python's int() / float() (a whole float becomes an integer); boolean accepts
 *     true/false in any case; object / array accept JSON, then a Python literal (`{'k': 'v'}`).
 * `glmTyped` (GLM-4.5+): a parameter the schema types as string keeps its text; anything else is JSON, then a
 *   Python literal, then the text (vLLM's glm4_moe semantics; with no tools every value is deserialized).
 */
import { pyToJson, tryLiteralEval } from '../core/pyliteral/index.ts';
import { isPlainObject, parseJsonish } from './jsonish.ts';

const ALIASES: Record<string, string> = {
  integer: 'integer',
  int: 'integer',
  long: 'integer',
  short: 'integer',
  uint: 'integer',
  int32: 'integer',
  int64: 'integer',
  number: 'number',
  float: 'number',
  double: 'number',
  num: 'number',
  decimal: 'number',
  boolean: 'boolean',
  bool: 'boolean',
  binary: 'boolean',
  object: 'object',
  dict: 'object',
  map: 'object',
  array: 'array',
  list: 'array',
  arr: 'array',
  tuple: 'array',
  string: 'string',
  str: 'string',
  text: 'string',
  varchar: 'string',
  char: 'string',
  enum: 'string',
  null: 'null',
  none: 'null',
};

/** The JSON Schema types a parameter schema allows, normalised (empty = nothing known). */
export function paramTypes(schema: unknown, depth = 0): Set<string> {
  const out = new Set<string>();
  if (!isPlainObject(schema) || depth > 8) return out;
  const add = (t: unknown) => {
    if (typeof t !== 'string') return;
    const k = t.trim().toLowerCase();
    out.add(ALIASES[k] ?? (k.startsWith('int') ? 'integer' : k.startsWith('float') ? 'number' : k));
  };
  const t = schema.type;
  if (Array.isArray(t)) t.forEach(add);
  else add(t);
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    const alts = schema[k];
    if (Array.isArray(alts)) for (const a of alts) for (const x of paramTypes(a, depth + 1)) out.add(x);
  }
  if (out.size === 0 && Array.isArray(schema.enum)) {
    for (const e of schema.enum) {
      if (e === null) out.add('null');
      else if (typeof e === 'boolean') out.add('boolean');
      else if (typeof e === 'number') out.add(Number.isInteger(e) ? 'integer' : 'number');
      else if (typeof e === 'string') out.add('string');
    }
  }
  if (out.size === 0 && isPlainObject(schema.properties)) out.add('object');
  if (out.size === 0 && isPlainObject(schema.items)) out.add('array');
  return out;
}

/** Python int(): optional sign, digits with single underscores between them, surrounding whitespace. */
const PY_INT = /^\s*[+-]?\d(?:_?\d)*\s*$/;
/** Python float(): decimal forms with exponent, inf/nan spellings, underscores between digits. */
const PY_FLOAT = /^\s*[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?\s*$/;

function pyInt(raw: string): number | undefined {
  if (!PY_INT.test(raw)) return undefined;
  const n = Number(raw.replace(/_/g, '').trim());
  return Number.isSafeInteger(n) ? n : undefined;
}

function pyFloat(raw: string): number | undefined {
  if (!PY_FLOAT.test(raw)) return undefined;
  const n = Number(raw.replace(/_/g, '').trim());
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Text that can never be a Python literal, told apart cheaply so the literal reader (whose failures cost an exception)
 * is skipped: a bare word other than True / False / None or a string prefix (`r'`, `b"`, `rb'`…) is a name; a first
 * character no literal starts with (a non-ASCII letter, `<`, `@`…); an ISO date (`2025-03-01` is a leading-zero
 * error in Python). Plain words, places and dates are the common XML-style values.
 */
const NOT_A_LITERAL = /^(?!(?:True|False|None)\b|[rRbBuU]{1,2}['"])[A-Za-z_]|^[^-+.\d'"[{(A-Za-z_]|^\d{4}-\d\d-\d\d/;

/** True when `text` (trimmed) cannot be a Python literal (`parse/properties.test.ts` checks it never skips one). */
export function cannotBeLiteral(text: string): boolean {
  return NOT_A_LITERAL.test(text);
}

/** JSON first, then a Python literal (ast.literal_eval), as JSON-shaped values; undefined when neither reads. */

export function jsonOrPython(raw: string): unknown {
  const t = raw.trim();
  if (t === '') return undefined;
  const j = parseJsonish(t, 'json');
  if (j.ok) return j.value;
  if (t.length > 100_000 || cannotBeLiteral(t)) return undefined;
  const p = tryLiteralEval(t);
  return p === undefined ? undefined : pyToJson(p);
}

function container(raw: string, want: 'object' | 'array'): unknown {
  let v = jsonOrPython(raw);
  // a JSON string holding a Python repr ("{'k': 'v'}"): one more read
  if (typeof v === 'string') v = jsonOrPython(v);
  if (want === 'object' ? isPlainObject(v) : Array.isArray(v)) return v;
  return undefined;
}

const ORDER = ['integer', 'number', 'boolean', 'object', 'array', 'string'] as const;

/** A parameter's text typed by its schema (see the module comment). `schema` undefined: no schema known. */
export function schemaTyped(raw: string, schema: unknown): unknown {
  if (schema === undefined) return raw;
  const types = paramTypes(schema);
  const lower = raw.trim().toLowerCase();
  if ((lower === 'null' || lower === 'none') && (types.has('null') || (types.size > 0 && !types.has('string'))))
    return null;
  if (types.size === 0 || (types.size === 1 && types.has('null'))) return raw;
  for (const t of ORDER) {
    if (!types.has(t)) continue;
    switch (t) {
      case 'integer': {
        const n = pyInt(raw);
        if (n !== undefined) return n;
        // an integer-typed value written as a whole float (3.0) is still that integer
        const f = pyFloat(raw);
        if (f !== undefined && Number.isInteger(f) && !types.has('number')) return f;
        break;
      }
      case 'number': {
        const f = pyFloat(raw);
        if (f !== undefined) return f;
        break;
      }
      case 'boolean':
        if (lower === 'true' || lower === 'false') return lower === 'true';
        break;
      case 'object':
      case 'array': {
        const v = container(raw, t);
        if (v !== undefined) return v;
        break;
      }
      case 'string':
        return raw;
    }
  }
  // nothing converted: unknown type names are read as a literal when they can be (vLLM), else kept as text
  if (![...types].some((t) => (ORDER as readonly string[]).includes(t))) {
    const v = jsonOrPython(raw);
    if (v !== undefined) return v;
  }
  return raw;
}

/** GLM semantics: string-typed parameters keep their text; everything else JSON → Python literal → text. */
export function glmTyped(raw: string, schema: unknown): unknown {
  const types = paramTypes(schema);
  if (types.size === 1 && types.has('string')) return raw;
  const v = jsonOrPython(raw.trim());
  return v === undefined ? raw : v;
}

/** The schema of one parameter of one tool, or undefined (no tools, unknown tool or unknown parameter). */
export function paramSchema(
  tools: Array<{ name: string; parameters?: Record<string, unknown> }> | undefined,
  tool: string,
  param: string,
): unknown {
  const t = tools?.find((x) => x.name === tool);
  const props =
    t && isPlainObject(t.parameters) && isPlainObject(t.parameters.properties) ? t.parameters.properties : undefined;
  if (!props || !Object.hasOwn(props, param)) return undefined;
  return props[param];
}
