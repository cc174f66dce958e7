// Python literal values: an exact emulation of CPython 3.11's ast.literal_eval, ==, and repr().
export type { PyValue } from './value.ts';
export { PyLiteralError, PyLiteralUnsupported } from './value.ts';
export { literalEval, tryLiteralEval } from './literal.ts';
export { pyEquals, hashKey } from './equality.ts';
export { pyRepr, floatRepr } from './repr.ts';
export { pyToJson, jsonToPy } from './json.ts';
export { pyStrip, pyLower, removeSuffix, pyContains, codePoints } from './pystr.ts';
