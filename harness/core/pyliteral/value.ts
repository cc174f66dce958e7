/** A Python value that `ast.literal_eval` can produce (CPython 3.11). */
export type PyValue =
  | { t: 'int'; v: bigint }
  | { t: 'float'; v: number }
  | { t: 'complex'; re: number; im: number }
  | { t: 'bool'; v: boolean }
  | { t: 'none' }
  | { t: 'str'; v: string }
  | { t: 'bytes'; v: Uint8Array }
  | { t: 'list'; items: PyValue[] }
  | { t: 'tuple'; items: PyValue[] }
  | { t: 'set'; items: PyValue[] }
  | { t: 'dict'; entries: Array<[PyValue, PyValue]> }
  | { t: 'ellipsis' };

/** `ast.literal_eval` would raise (SyntaxError, ValueError, TypeError, OverflowError, ...). */
export class PyLiteralError extends Error {
  override name = 'PyLiteralError';
}

/**
 * Python would accept the literal, but this emulation cannot represent or compute its value exactly, so it refuses
 * rather than guess. Thrown only after the whole source parsed and evaluated without a Python error. Cases:
 * a str whose escapes produce a high surrogate code point directly followed by a low one (`'\ud83d\ude00'` is two
 * code points in Python, one in a JS string), and `\N{...}` when the bundled name table cannot be loaded.
 */
export class PyLiteralUnsupported extends PyLiteralError {
  override name = 'PyLiteralUnsupported';
}
