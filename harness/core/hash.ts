import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkDepth } from './depth.ts';
import { setOwn } from './set-own.ts';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
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
 * (given their key) and boxed primitives unwrapped, as JSON.stringify does, before the keys are sorted.
 */
export function stableJsonStringify(value: unknown): string {
  return JSON.stringify(sortJsonKeys(value, '', 0));
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
