// The one Python front-end: CPython 3.11's tokenizer and `ast.parse(mode="eval")`, `ast.literal_eval`, `==`,
// `repr()` and `json.loads`/`dumps` on Python values (docs/python-literals.md).
export type { PyValue } from './value.ts';
export { PyLiteralError, PyLiteralUnsupported } from './value.ts';
export type { Keyword, Node } from './nodes.ts';
export { parseEval, PySyntaxError } from './parser.ts';
export { literalEval, tryLiteralEval } from './literal.ts';
export { pyEquals, hashKey } from './equality.ts';
export { pyRepr, floatRepr } from './repr.ts';
export { pyToJson, jsonToPy } from './json.ts';
export { pyStrip, pyLower, removeSuffix } from './pystr.ts';
