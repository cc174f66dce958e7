import { dirname, parse, relative, resolve, sep } from 'node:path';

/**
 * The viewer never shows where a run lives on this machine: a page is shared (a CI artifact, an exported file), and an
 * absolute path tells the reader the user's name, home and temporary folders. Every path in the page's data is shown
 * relative to the folder the viewer was opened on, so a path in the page, joined to that folder, still names the file.
 */

/**
 * The folder the viewer was opened on: a folder of runs given on the command line, or a run folder's parent; with
 * several, the deepest folder holding them all.
 */
export function viewBase(paths: readonly string[], runDirs: readonly string[]): string {
  const opened = paths.map((p) => resolve(p)).map((p) => (runDirs.includes(p) ? dirname(p) : p));
  return opened.reduce((a, b) => commonAncestor(a, b), opened[0] ?? resolve('.'));
}

function commonAncestor(a: string, b: string): string {
  const pa = a.split(sep);
  const pb = b.split(sep);
  let i = 0;
  while (i < pa.length && i < pb.length && pa[i] === pb[i]) i++;
  return pa.slice(0, i).join(sep) || parse(a).root;
}

export interface PathContext {
  /** The folder the viewer was opened on (viewBase). */
  base: string;
  /** The run folders on the page. */
  runDirs: readonly string[];
  /** The user's home (`~` where nothing nearer names a path). */
  home: string;
  /** The working directory. */
  cwd: string;
}

/** Absolute prefix → what is shown in its place, longest first; the filesystem's root is never one. */
export function pathRewrites(c: PathContext): Array<[string, string]> {
  const shown = (p: string) => relative(c.base, p) || '.';
  const pairs: Array<[string, string]> = [
    ...c.runDirs.map((d) => [resolve(d), shown(resolve(d))] as [string, string]),
    [resolve(c.base), '.'],
    [resolve(c.cwd), shown(resolve(c.cwd))],
    ...(c.home ? [[resolve(c.home), '~'] as [string, string]] : []),
  ];
  const seen = new Set<string>();
  return pairs
    .filter(([abs]) => abs !== parse(abs).root && !seen.has(abs) && seen.add(abs))
    .sort((a, b) => b[0].length - a[0].length);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every string inside `value` with each absolute prefix of `rewrites` replaced, in one pass (longest first). */
export function rewritePaths<T>(value: T, rewrites: ReadonlyArray<[string, string]>): T {
  if (!rewrites.length) return value;
  const to = new Map(rewrites);
  // A prefix ends at a separator, the string's end or a character no path name continues with.
  const re = new RegExp(`(?:${rewrites.map(([abs]) => escapeRegExp(abs)).join('|')})(?![\\w.~-])`, 'g');
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(re, (m) => to.get(m) ?? m);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [walk(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
