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
