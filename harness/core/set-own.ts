/**
 * out[key] = value as an own, enumerable data property, for any key. An assignment to `__proto__` would set the
 * prototype instead, so that key alone is defined; defining every key costs several times an assignment, and the
 * copies that use this (plain data from JSON or Python values, sorted for hashing) make millions of keys.
 */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
