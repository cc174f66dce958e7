import { sha256 } from '../core/hash.ts';

/**
 * Names derived from instance ids. Ids come from data (any length, any characters), so nothing on disk is named by
 * the id itself: a file name is a short readable prefix plus a hash of the exact id, and the id is kept inside
 * the file. Two ids never share a file (`a/b` and `a_b` hash apart), and no id is too long for the file system.
 */

/** The key of one instance and trial in journals and record files. */
export function instanceKey(id: string, trial: number): string {
  return `${id}\u0000${trial}`;
}

const SAFE = /[^A-Za-z0-9._-]+/g;

/** `traces/<prefix>-<hash12>[-t<trial>].json`: at most ~70 characters whatever the id. */
export function artifactName(id: string, trial: number, ext = 'json'): string {
  const prefix = id.replace(SAFE, '_').slice(0, 40) || 'id';
  return `${prefix}-${sha256(id).slice(0, 12)}${trial > 0 ? `-t${trial}` : ''}.${ext}`;
}

export function tracePath(id: string, trial: number, ext = 'json'): string {
  return `traces/${artifactName(id, trial, ext)}`;
}

/** Test names carry ids verbatim but on one line: control characters become visible escapes. */
export function printableId(id: string): string {
  // eslint-disable-next-line no-control-regex
  return id.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
