/**
 * A tool result up to the order of set iteration, which differs between pyodide's (32-bit) and CPython's hashes:
 * JSON arrays sorted deep, NaN read as null; text that is not JSON as it is.
 */
export function canonicalResult(content: string): string {
  const sortDeep = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sortDeep).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sortDeep(x)]))
        : v;
  try {
    return JSON.stringify(sortDeep(JSON.parse(content.replace(/\bNaN\b/g, 'null'))));
  } catch {
    return content;
  }
}
