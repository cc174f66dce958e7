import { dirname, isAbsolute, relative, sep } from 'node:path';

/**
 * Where Vitest globs a run's eval files from (its `dir`) and the `include` patterns that name them. Vitest globs
 * `include` from `dir`, the root by default. A file outside the root makes a pattern that climbs out of it
 * (`../../tmp/run/x.eval.ts`), and the glob then starts at the folder it climbs to and lists every folder on the way
 * down: from the filesystem's root, the system's temporary folder with all its entries (about 0.15 CPU-s a run with
 * 15,000 of them). Such files are globbed from the deepest folder that holds them all. Files inside the root keep the
 * root and their paths from it (the glob then starts at their common folder by itself), so what the configuration's
 * `exclude` sees of them is unchanged.
 */
export function evalGlob(root: string, files: readonly string[]): { dir?: string; include: string[] } {
  if (files.every((f) => isInside(root, f))) return { include: files.map((f) => relative(root, f)) };
  const dir = commonFolder(files);
  return { dir, include: files.map((f) => relative(dir, f)) };
}

function isInside(root: string, file: string): boolean {
  const rel = relative(root, file);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** The deepest folder that holds every one of `files` (absolute paths). */
export function commonFolder(files: readonly string[]): string {
  let common = dirname(files[0]!);
  for (const f of files.slice(1)) while (!isInside(common, f)) common = dirname(common);
  return common;
}
