import { redact, redactCut } from './redact.ts';
import { checkDepth } from './depth.ts';

/**
 * Stored content is bounded: a model can answer with megabytes, and a run must not write gigabytes. Every string
 * longer than `max` characters inside a value is cut, with a marker that keeps the original length. Secrets are
 * redacted before the cut, in every string and key (core/redact.ts says why the order matters).
 */
export const DEFAULT_STORED_CHARS = 100_000;

export function capText(s: string, max = DEFAULT_STORED_CHARS): string {
  return redactCut(s, max, (length) => `… [truncated: ${length} characters]`);
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
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, redact(k), {
        value: capStrings(v, max, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out as T;
  }
  return value;
}
