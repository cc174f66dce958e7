/**
 * Schema-driven typing of argument values.
 *
 * - `qwenParamValue`: the qwen3_xml format itself carries raw text, typed by the tool schema (as vLLM's
 *   qwen3coder parser does): part of that format's strict tier.
 * - `coerceArgs`: the lenient tier's repair of wrongly typed JSON values ("5" → 5 for an integer,
 *   "true" → true, a JSON string for an object/array). The strict tier never calls it.
 */
import { isPlainObject, parseJsonish, setOwn } from './jsonish.ts';

type Schema = Record<string, unknown>;

/** The JSON Schema types a schema allows (empty = unknown / anything). */
export function schemaTypes(schema: unknown): Set<string> {
  const out = new Set<string>();
  if (!isPlainObject(schema)) return out;
  const t = schema.type;
  if (typeof t === 'string') out.add(t.toLowerCase());
  else if (Array.isArray(t)) for (const x of t) if (typeof x === 'string') out.add(x.toLowerCase());
  for (const k of ['anyOf', 'oneOf']) {
    const alts = schema[k];
    if (Array.isArray(alts)) for (const a of alts) for (const x of schemaTypes(a)) out.add(x);
  }
  if (out.size === 0 && Array.isArray(schema.enum) && schema.enum.every((e) => typeof e === 'string'))
    out.add('string');
  if (out.size === 0 && isPlainObject(schema.properties)) out.add('object');
  if (out.size === 0 && isPlainObject(schema.items)) out.add('array');
  return out;
}

export function propertiesOf(parameters: unknown): Record<string, unknown> {
  if (isPlainObject(parameters) && isPlainObject(parameters.properties)) return parameters.properties;
  return {};
}

function typeOk(v: unknown, types: Set<string>): boolean {
  if (types.size === 0) return true;
  if (v === null) return types.has('null');
  if (Array.isArray(v)) return types.has('array');
  switch (typeof v) {
    case 'string':
      return types.has('string');
    case 'boolean':
      return types.has('boolean');
    case 'number':
      return types.has('number') || (types.has('integer') && Number.isInteger(v));
    case 'object':
      return types.has('object');
    default:
      return false;
  }
}

const INT_TEXT = /^[+-]?\d+$/;
const NUM_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** qwen3_xml parameter text → value, by the parameter's schema (vLLM qwen3coder semantics). */
export function qwenParamValue(raw: string, paramSchema: unknown): unknown {
  if (raw.toLowerCase() === 'null') return null;
  if (paramSchema === undefined) return raw;
  const types = schemaTypes(paramSchema);
  if (types.size === 0 || types.has('string')) return raw;
  const t = raw.trim();
  if (types.has('integer') && INT_TEXT.test(t)) return Number(t);
  if ((types.has('number') || types.has('integer')) && NUM_TEXT.test(t)) return Number(t);
  if (types.has('boolean') && (t === 'true' || t === 'false')) return t === 'true';
  if (types.has('boolean') && (t === 'True' || t === 'False')) return t === 'True';
  if (types.has('object') || types.has('array')) {
    const r = parseJsonish(t, 'json');
    if (r.ok && typeOk(r.value, types)) return r.value;
  }
  return raw;
}

/**
 * Coerce one value toward its schema. Returns the value unchanged when it already fits or when no
 * coercion is clearly right.
 */
export function coerceValue(v: unknown, schema: unknown, changed: { n: number }, depth = 0): unknown {
  if (depth > 32 || !isPlainObject(schema)) return v;
  const types = schemaTypes(schema);
  if (!typeOk(v, types)) {
    const c = coerceScalar(v, types);
    if (c.ok) {
      changed.n++;
      v = c.value;
    }
  }
  if (isPlainObject(v) && (types.size === 0 || types.has('object'))) {
    const props = propertiesOf(schema);
    let out: Record<string, unknown> | null = null;
    for (const [k, x] of Object.entries(v)) {
      if (!Object.hasOwn(props, k)) continue;
      const before = changed.n;
      const y = coerceValue(x, props[k], changed, depth + 1);
      if (changed.n !== before) {
        out ??= { ...v };
        setOwn(out, k, y);
      }
    }
    return out ?? v;
  }
  if (Array.isArray(v) && (types.size === 0 || types.has('array')) && isPlainObject((schema as Schema).items)) {
    const before = changed.n;
    const arr = v.map((x) => coerceValue(x, (schema as Schema).items, changed, depth + 1));
    return changed.n !== before ? arr : v;
  }
  return v;
}

function coerceScalar(v: unknown, types: Set<string>): { ok: true; value: unknown } | { ok: false } {
  if (typeof v === 'string') {
    const t = v.trim();
    if (types.has('integer') && INT_TEXT.test(t)) return { ok: true, value: Number(t) };
    if (types.has('integer') && NUM_TEXT.test(t) && Number.isInteger(Number(t))) return { ok: true, value: Number(t) };
    if (types.has('number') && NUM_TEXT.test(t)) return { ok: true, value: Number(t) };
    if (types.has('boolean') && /^(true|false)$/i.test(t)) return { ok: true, value: t.toLowerCase() === 'true' };
    if (types.has('null') && /^(null|none)$/i.test(t)) return { ok: true, value: null };
    if (types.has('object') || types.has('array')) {
      const r = parseJsonish(t, 'loose');
      if (r.ok && typeOk(r.value, types)) return { ok: true, value: r.value };
    }
    return { ok: false };
  }
  if ((typeof v === 'number' || typeof v === 'boolean') && types.has('string')) return { ok: true, value: String(v) };
  if (typeof v === 'number' && types.has('boolean') && (v === 0 || v === 1)) return { ok: true, value: v === 1 };
  return { ok: false };
}

/** Coerce a call's arguments by its tool's `parameters` schema; returns how many values changed. */
export function coerceArgs(
  args: Record<string, unknown>,
  parameters: unknown,
): { args: Record<string, unknown>; changed: number } {
  const changed = { n: 0 };
  const props = propertiesOf(parameters);
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(args)) {
    if (!Object.hasOwn(props, k)) continue;
    const before = changed.n;
    const y = coerceValue(v, props[k], changed);
    if (changed.n !== before) {
      out ??= { ...args };
      setOwn(out, k, y);
    }
  }
  return { args: out ?? args, changed: changed.n };
}
