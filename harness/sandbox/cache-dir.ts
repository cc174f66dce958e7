// A private per-user cache folder for sandbox artefacts (the pyodide memory snapshot), safe against other users
// of the machine: created 0700, used only when it is a real folder (not a symlink) owned by this user with no
// access for anyone else; files are read with O_NOFOLLOW and checked the same way, and written to an exclusive
// temporary name (O_CREAT|O_EXCL|O_NOFOLLOW) that is then renamed into place. When the per-user folder cannot
// be trusted, a fresh private folder (mkdtemp) serves this process instead.
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export interface CacheDir {
  path: string;
  /** Why the per-user folder was not used, when `path` is a private fallback for this process only. */
  refused?: string;
}

const uid = () => process.getuid?.() ?? -1;

/** Why `dir` is not a private folder of this user, or '' when it is. */
export function untrustedReason(dir: string): string {
  let st;
  try {
    st = lstatSync(dir);
  } catch (err) {
    return `cannot stat: ${(err as Error).message}`;
  }
  if (st.isSymbolicLink()) return 'is a symbolic link';
  if (!st.isDirectory()) return 'is not a directory';
  if (uid() >= 0 && st.uid !== uid()) return `is owned by uid ${st.uid}, not ${uid()}`;
  if ((st.mode & 0o077) !== 0) return `has mode ${(st.mode & 0o777).toString(8)}, not 700`;
  return '';
}

/** `<root>/<name>-<uid>`, created 0700 if absent and checked; a fresh private folder when it cannot be trusted. */
export function privateCacheDir(root: string = tmpdir(), name = 'toolgauge-sandbox'): CacheDir {
  const dir = path.join(root, `${name}-${uid()}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      return fallback(root, name, `${dir}: ${(err as Error).message}`);
  }
  const reason = untrustedReason(dir);
  return reason ? fallback(root, name, `${dir} ${reason}`) : { path: dir };
}

function fallback(root: string, name: string, refused: string): CacheDir {
  return { path: mkdtempSync(path.join(root, `${name}-${uid()}-`)), refused };
}

/**
 * Open a cached file for reading: a regular file owned by this user, writable by no one else, reached without
 * following a symlink. Returns the descriptor (the caller closes it), or null when absent or untrusted.
 */
export function openCachedFile(dir: string, name: string): number | null {
  let fd: number;
  try {
    fd = openSync(path.join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  const st = fstatSync(fd);
  if (!st.isFile() || (uid() >= 0 && st.uid !== uid()) || (st.mode & 0o022) !== 0) {
    closeSync(fd);
    return null;
  }
  return fd;
}

/** Write `bytes` as `name` in `dir`: an exclusive temporary file, synced, renamed into place. */
export function writeCachedFile(dir: string, name: string, bytes: Uint8Array): string {
  const target = path.join(dir, name);
  const tmp = path.join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, target); // replaces whatever has the name, a planted symlink included, without following it
  return target;
}
