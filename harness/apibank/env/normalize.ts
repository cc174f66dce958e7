import type { PyValue } from '../../core/pyliteral/index.ts';
import type { Json } from './index.ts';
/** The reference's normalize_params over recorded JSON params. */
export function normalizeParams(_params: Record<string, Json>): Record<string, PyValue> {
  throw new Error('not implemented yet');
}
export function normalizeValue(_v: PyValue): PyValue {
  throw new Error('not implemented yet');
}
