import { checkDepth } from './depth.ts';

/**
 * Stored content is bounded: a model can answer with megabytes, and a run must not write gigabytes. Every string
 * longer than `max` characters inside a value is cut, with a marker that keeps the original length. Pure.
 */
export const DEFAULT_STORED_CHARS = 100_000;

export function capText(s: string, max = DEFAULT_STORED_CHARS): string {
  return s.length > max ? `${s.slice(0, max)}… [truncated: ${s.length} characters]` : s;
}

export function capStrings<T>(value: T, max = DEFAULT_STORED_CHARS, depth = 0): T {
  if (typeof value === 'string') return capText(value, max) as T;
  if (Array.isArray(value)) {
    checkDepth(depth + 1, 'a value to store');
    return value.map((v) => capStrings(v, max, depth + 1)) as T;
  }
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    checkDepth(depth + 1, 'a value to store');
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: capStrings(v, max, depth + 1), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return value;
}
