import { sha256 } from '../core/hash.ts';
import { escapeTerminal } from '../core/terminal.ts';

/**
 * Names derived from instance ids. Ids come from data (any length, any characters). A short plain id (letters,
 * digits, `.`, `_`, `-`) names its file as itself (`traces/17.json`, where the reference runner's scripts look);
 * any other id gets a short readable prefix, `+` (which no plain name contains) and a hash of the exact id. The id
 * is kept inside the file. Two ids never share a file (`a/b` and `a_b` differ) and no name is too long.
 */

/** The key of one instance and trial in journals and record files. */
export function instanceKey(id: string, trial: number): string {
  return `${id}\u0000${trial}`;
}

const SAFE = /[^A-Za-z0-9._-]+/g;

/** `traces/<id>[+t<trial>].json`, or `traces/<prefix>+<hash12>…` for any other id: at most ~70 characters. */
const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function artifactName(id: string, trial: number, ext = 'json'): string {
  const suffix = `${trial > 0 ? `+t${trial}` : ''}.${ext}`;
  if (PLAIN.test(id)) return `${id}${suffix}`;
  const prefix = id.replace(SAFE, '_').slice(0, 40) || 'id';
  return `${prefix}+${sha256(id).slice(0, 12)}${suffix}`;
}

export function tracePath(id: string, trial: number, ext = 'json'): string {
  return `traces/${artifactName(id, trial, ext)}`;
}

/** Test names carry ids verbatim but on one line: control characters and bidi overrides become visible escapes. */
export function printableId(id: string): string {
  return escapeTerminal(id);
}
