import * as crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkDepth } from './depth.ts';
import { setOwn } from './set-own.ts';

// crypto.hash (Node 20.12+; package.json allows 20.10): one call rather than a Hash object per digest, about 1 µs
// less each (a rescore's seals take three per instance).
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

export function sha256(data: string | Uint8Array): string {
  if (oneShot) return oneShot('sha256', data, 'hex');
  return crypto.createHash('sha256').update(data).digest('hex');
}

export function sha256File(path: string): string {
  return sha256(readFileSync(path));
}

/** Stable JSON: object keys sorted, so equal values hash equally (request cache keys, dataset hashes). */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown, depth = 0): unknown {
  if (Array.isArray(v)) {
    checkDepth(depth + 1, 'a value to hash');
    return v.map((x) => sortKeys(x, depth + 1));
  }
  if (v && typeof v === 'object') {
    checkDepth(depth + 1, 'a value to hash');
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) setOwn(out, k, sortKeys(x, depth + 1));
    }
    return out;
  }
  return v;
}

/**
 * stableStringify(JSON.parse(JSON.stringify(value))) without writing and reading the text: objects' toJSON applied
 * (given their key) and boxed primitives unwrapped, as JSON.stringify does, before the keys are sorted. The text is
 * written in one walk rather than built as a sorted copy for JSON.stringify (the copy was most of a record seal's
 * cost); values JSON.stringify treats in rarer ways (bigints, functions with toJSON) take the copy.
 */
export function stableJsonStringify(value: unknown): string {
  try {
    return writeSorted(value, '', 0) as string;
  } catch (err) {
    if (err !== RARE) throw err;
    return JSON.stringify(sortJsonKeys(value, '', 0));
  }
}

const RARE = Symbol('a value stableJsonStringify leaves to JSON.stringify');

/** JSON.stringify of a value that is not an object (undefined where it writes nothing). */
function writePrimitive(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
    case 'symbol':
      return undefined;
    case 'function':
      if (typeof (v as { toJSON?: unknown }).toJSON === 'function') throw RARE;
      return undefined;
    default:
      throw RARE;
  }
}

/** The text JSON.stringify gives sortJsonKeys(value, key, depth). */
function writeSorted(value: unknown, key: string, depth: number): string | undefined {
  if (typeof value !== 'object') return writePrimitive(value);
  if (value === null) return 'null';
  let v: unknown = value;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(k: string): unknown }).toJSON(key);
  if (typeof v !== 'object') return writePrimitive(v);
  if (v === null) return 'null';
  if (v instanceof Number || v instanceof String || v instanceof Boolean) return writePrimitive(v.valueOf());
  checkDepth(depth + 1, 'a value to hash');
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += `${i ? ',' : ''}${writeSorted(v[i], String(i), depth + 1) ?? 'null'}`;
    return `${out}]`;
  }
  let out = '{';
  for (const k of jsonKeyOrder(Object.keys(v).sort())) {
    const x = writeSorted((v as Record<string, unknown>)[k], k, depth + 1);
    if (x === undefined) continue;
    if (out.length > 1) out += ',';
    out += quotedKey(k);
    out += x;
  }
  return `${out}}`;
}

// Records repeat the same few hundred keys (a seal writes three per instance): each is quoted once.
const QUOTED = new Map<string, string>();
const QUOTED_MAX = 4096;

/** `"key":` as JSON.stringify writes it. */
function quotedKey(k: string): string {
  let q = QUOTED.get(k);
  if (q === undefined) {
    q = `${JSON.stringify(k)}:`;
    if (k.length <= 64 && QUOTED.size < QUOTED_MAX) QUOTED.set(k, q);
  }
  return q;
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;
const isArrayIndex = (k: string) => ARRAY_INDEX.test(k) && Number(k) < 4294967295;

/**
 * Sorted keys in the order an object built by inserting them lists them: array indices first, in numeric order
 * (the sorted copy JSON.stringify wrote kept that order).
 */
function jsonKeyOrder(sorted: string[]): string[] {
  let indices: string[] | undefined;
  for (const k of sorted) {
    const c = k.charCodeAt(0);
    if (c >= 48 && c <= 57 && isArrayIndex(k)) (indices ??= []).push(k);
  }
  if (!indices) return sorted;
  return [...indices.sort((a, b) => Number(a) - Number(b)), ...sorted.filter((k) => !isArrayIndex(k))];
}

function sortJsonKeys(value: unknown, key: string, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  let v: unknown = value;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(k: string): unknown }).toJSON(key);
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof Number || v instanceof String || v instanceof Boolean) return v.valueOf();
  checkDepth(depth + 1, 'a value to hash');
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = sortJsonKeys(v[i], String(i), depth + 1);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = sortJsonKeys((v as Record<string, unknown>)[k], k, depth + 1);
    if (x !== undefined) setOwn(out, k, x);
  }
  return out;
}
