// ast.literal_eval(str) of CPython 3.11: parse(src.lstrip(" \t"), mode="eval"), then the literal_eval walk.
import { evaluate } from './evaluate.ts';
import { parse } from './parser.ts';
import { pyLstripChars } from './pystr.ts';
import { tokenize } from './tokenizer.ts';
import { PyLiteralError, PyLiteralUnsupported, type PyValue } from './value.ts';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Python's literal_eval of `src`; throws PyLiteralError exactly when Python raises. See PyLiteralUnsupported. */
export function literalEval(src: string): PyValue {
  const source = pyLstripChars(src, ' \t');
  // compile() refuses NUL, and a str with a lone surrogate cannot be encoded to UTF-8.
  if (source.includes('\0')) throw new PyLiteralError('source code string cannot contain null bytes');
  if (LONE_SURROGATE.test(source)) throw new PyLiteralError("UnicodeEncodeError: 'utf-8' codec can't encode surrogates");
  const { value, unsupported } = evaluate(parse(tokenize(source)));
  if (unsupported) throw new PyLiteralUnsupported(`Python accepts this literal, but ${unsupported}`);
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
