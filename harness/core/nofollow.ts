import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * Writing inside an output directory without following links. A link planted in place of a file or folder the run
 * writes (`instances.jsonl` → someone's file, `traces/` → someone's folder) is refused with a clear error rather
 * than written through: every folder between the output directory and the file is checked with lstat (and created
 * when missing), and the file itself is opened with O_NOFOLLOW.
 */
export class LinkRefused extends Error {
  override name = 'LinkRefused';
}

function refuse(p: string): never {
  throw new LinkRefused(
    `${p} is a symbolic link: toolgauge does not write through links (remove it, or choose another output directory)`,
  );
}

// A hard link is the same file under a second name: O_NOFOLLOW and lstat see a plain file, and an append would
// land in the other name's file too.
function refuseHard(p: string): never {
  throw new LinkRefused(
    `${p} has other hard links: toolgauge does not write into a file that is also elsewhere (remove it, or choose another output directory)`,
  );
}

/** The folder `dir` and every folder between `root` and it, created when missing; a link or a file among them is refused. */
export function mkdirNoFollow(root: string, dir: string): void {
  const rel = relative(root, dir);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${dir} is not inside ${root}`);
  mkdirSync(root, { recursive: true });
  let p = root;
  for (const part of rel.split(sep).filter(Boolean)) {
    p = join(p, part);
    for (let attempt = 0; ; attempt++) {
      const st = lstatOrNull(p);
      if (!st) {
        try {
          mkdirSync(p);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
        }
        continue;
      }
      if (st.isSymbolicLink()) refuse(p);
      if (!st.isDirectory()) throw new LinkRefused(`${p} is not a folder`);
      break;
    }
  }
}

/** Open a file for writing without following a link in its place (O_NOFOLLOW): `flags` are O_* constants besides. */
export function openNoFollow(path: string, flags: number, mode = 0o644): number {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') refuse(path);
    throw err;
  }
  // Checked on the open descriptor, so a link made between a check and the open is seen too.
  if (flags & (constants.O_WRONLY | constants.O_RDWR) && fstatSync(fd).nlink > 1) {
    closeQuietly(fd);
    refuseHard(path);
  }
  return fd;
}

/** Refuse when `path` exists as a link, symbolic or hard (lstat); a missing path is fine. */
export function refuseLink(path: string): void {
  const st = lstatOrNull(path);
  if (st?.isSymbolicLink()) refuse(path);
  if (st?.isFile() && st.nlink > 1) refuseHard(path);
}

export function lstatOrNull(p: string) {
  try {
    return lstatSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}
