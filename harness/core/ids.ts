import { sha256 } from './hash.ts';

/**
 * How an instance id travels in a request header (the simulator's routing hint): as itself when it is short and
 * plain, else as `#` and a hash of it. Ids come from data — any length, any character (CR, LF, NUL) — and data
 * never goes into a header verbatim. Responders key their tables by the same function.
 */
export function headerId(id: string): string {
  return /^[\w.:@+-]{1,64}$/.test(id) ? id : `#${sha256(id).slice(0, 24)}`;
}
