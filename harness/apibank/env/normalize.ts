// The reference's parameter normalisation: a str value that starts with '[', '{' or '(' becomes its Python
// literal when it is one, and stays the str otherwise.
import { jsonToPy, tryLiteralEval, type PyValue } from '../../core/pyliteral/index.ts';
import type { Json } from './index.ts';

export function normalizeValue(v: PyValue): PyValue {
  if (v.t === 'str' && (v.v.startsWith('[') || v.v.startsWith('{') || v.v.startsWith('('))) {
    return tryLiteralEval(v.v) ?? v;
  }
  return v;
}

/** normalize_params over recorded JSON params, in their order. */
export function normalizeParams(params: Readonly<Record<string, Json>> | null | undefined): Array<[string, PyValue]> {
  return Object.entries(params ?? {}).map(([k, v]) => [k, normalizeValue(jsonToPy(v))]);
}
