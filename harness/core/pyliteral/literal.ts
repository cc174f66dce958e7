// ast.literal_eval(str) of CPython 3.11: parse(src.lstrip(" \t"), mode="eval"), then the literal_eval walk.
import { literalValue } from './evaluate.ts';
import { parseEvalTree, PySyntaxError } from './parser.ts';
import { pyLstripChars } from './pystr.ts';
import { PyLiteralError, PyLiteralUnsupported, type PyValue } from './value.ts';

/** Python's literal_eval of `src`; throws PyLiteralError exactly when Python raises. See PyLiteralUnsupported. */
export function literalEval(src: string): PyValue {
  let tree: ReturnType<typeof parseEvalTree>;
  try {
    tree = parseEvalTree(pyLstripChars(src, ' \t'));
  } catch (err) {
    if (err instanceof PySyntaxError) throw new PyLiteralError(`SyntaxError: ${err.message}`);
    throw err;
  }
  const value = literalValue(tree.body);
  // Only after the whole source parsed and evaluated without a Python error.
  if (tree.unsupported) throw new PyLiteralUnsupported(`Python accepts this literal, but ${tree.unsupported}`);
  return value;
}

/** literalEval, or undefined when Python would raise (or the value is unsupported). */
export function tryLiteralEval(src: string): PyValue | undefined {
  try {
    return literalEval(src);
  } catch (err) {
    if (err instanceof PyLiteralError) return undefined;
    throw err;
  }
}
