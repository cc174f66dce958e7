import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';

/**
 * Writing inside an output directory without following links. A link planted in place of a file or folder the run
 * writes (`instances.jsonl` → someone's file, `traces/` → someone's folder) is refused with a clear error rather
 * than written through: every folder between the output directory and the file is checked with lstat (and created
 * when missing), and the file itself is opened with O_NOFOLLOW.
 */
/** A path toolgauge will not read or write: a link, or something other than a regular file (FIFO, device, folder, socket), or too big. */
export class FileRefused extends Error {
  override name = 'FileRefused';
}

export class LinkRefused extends FileRefused {
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

/** What a non-regular file is, for a one-line refusal. */
export function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return st.isFile() ? 'a regular file' : 'not a regular file';
}

function notRegular(path: string, st: Stats): never {
  throw new FileRefused(`${path} is ${kindOf(st)}, not a regular file: toolgauge does not read or write it`);
}

export interface OpenReadOptions {
  /**
   * The folder the file must stay in (an output directory): every folder between `root` and the file is checked
   * with lstat, and none may be a link (the root itself may be: the user named it), nor the file. Without it the
   * path is one the user named (a dataset, a GGUF): links are followed, but the file must still be regular.
   */
  root?: string;
}

/** The folders between `root` and `path` (excluding both ends): null when one is missing; a link or a non-folder is refused. */
function checkFolders(root: string, path: string): true | null {
  const rel = relative(root, dirname(path));
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new FileRefused(`${path} is not inside ${root}`);
  let p = root;
  for (const part of rel.split(sep).filter(Boolean)) {
    p = join(p, part);
    const st = lstatOrNull(p);
    if (!st) return null;
    if (st.isSymbolicLink()) throw new LinkRefused(`${p} is a symbolic link: toolgauge does not read through links`);
    if (!st.isDirectory()) throw new FileRefused(`${p} is ${kindOf(st)}, not a folder`);
  }
  return true;
}

// The opened file's real path (Linux's /proc): a folder swapped for a link between the lstat walk and the open is
// caught here. Elsewhere the walk alone decides.
function realPathOfFd(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * Open a file for reading, safely on a path toolgauge does not own: O_NONBLOCK (a FIFO in the file's place fails
 * the type check instead of blocking the open forever), O_NOFOLLOW under a root, and the type checked with fstat on
 * the open descriptor before anything is read: only a regular file is read (a FIFO, device, folder or socket is a
 * FileRefused). Returns the descriptor and size, or null when the file (or a folder on its way) is missing.
 */
export function openForReading(path: string, o: OpenReadOptions = {}): { fd: number; size: number } | null {
  if (o.root && !checkFolders(o.root, path)) return null;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (o.root ? constants.O_NOFOLLOW : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new LinkRefused(`${path} is a symbolic link: toolgauge does not read through links`);
    const st = lstatOrNull(path);
    if (st && !st.isFile()) notRegular(path, st); // a socket (ENXIO), a device without a driver
    throw new FileRefused(`${path}: cannot open (${code ?? (err as Error).message})`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) notRegular(path, st);
    if (o.root) {
      const real = realPathOfFd(fd);
      const rootReal = realpathSync(o.root);
      if (real && real !== rootReal && !real.startsWith(rootReal.endsWith(sep) ? rootReal : rootReal + sep))
        throw new LinkRefused(`${path} leads outside ${o.root} (through a link): not read`);
    }
    return { fd, size: st.size };
  } catch (err) {
    closeQuietly(fd);
    throw err;
  }
}

/** The most a whole-file read takes by default (summaries, run.json, locks, traces: far smaller in practice). */
export const MAX_READ_BYTES = 64 * 1024 * 1024;

/**
 * A regular file's bytes (openForReading's checks), refused when over `maxBytes`; null when missing. The one way a
 * whole file is read from a folder toolgauge does not own.
 */
export function readFileChecked(path: string, o: OpenReadOptions & { maxBytes?: number } = {}): Buffer | null {
  const max = o.maxBytes ?? MAX_READ_BYTES;
  const opened = openForReading(path, o);
  if (!opened) return null;
  const { fd, size } = opened;
  try {
    if (size > max) throw new FileRefused(`${path} is ${size} bytes, over the limit of ${max}`);
    return readOpened(fd, size);
  } finally {
    closeQuietly(fd);
  }
}

/** The first `size` bytes of an open file (fewer if it shrank meanwhile). */
export function readOpened(fd: number, size: number): Buffer {
  const buf = Buffer.alloc(size);
  let at = 0;
  while (at < size) {
    const n = readSync(fd, buf, at, size - at, at);
    if (n === 0) break;
    at += n;
  }
  return buf.subarray(0, at);
}

/** readFileChecked as UTF-8 text. */
export function readTextChecked(path: string, o: OpenReadOptions & { maxBytes?: number } = {}): string | null {
  return readFileChecked(path, o)?.toString('utf8') ?? null;
}

/**
 * Refuse to replace anything but a regular file at `path`: a link, FIFO, device, folder or socket there is a one-line
 * FileRefused (a rename would replace a device node such as /dev/null, or fail on a folder with a stack).
 */
export function refuseNonRegularTarget(path: string): void {
  const st = lstatOrNull(path);
  if (!st || st.isFile()) return;
  if (st.isSymbolicLink())
    throw new LinkRefused(
      `${path} is a symbolic link: toolgauge does not replace it (remove it, or choose another path)`,
    );
  throw new FileRefused(
    `${path} is ${kindOf(st)}, not a regular file: toolgauge does not replace it (remove it, or choose another path)`,
  );
}

/**
 * Write a file atomically (temp + rename) so readers never see half of it: the temporary file is created exclusively
 * without following links, and the destination must be missing or a regular file (refuseNonRegularTarget). Its
 * folder must exist (the caller makes it, with mkdirNoFollow inside an output directory).
 */
export function writeAtomic(path: string, data: string | Uint8Array | Iterable<string>): void {
  refuseNonRegularTarget(path);
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openNoFollow(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
  try {
    if (typeof data === 'string' || data instanceof Uint8Array) writeAll(fd, data);
    else {
      // Chunks (a journal's lines) are written about 32 KiB at a time: the whole file is never one string, and each
      // batch is small enough for V8's young generation, where it dies at the next scavenge (a mebibyte went to the
      // large-object space and stayed until a full collection: about twice the journal's size at the end of a run).
      let batch: string[] = [];
      let size = 0;
      for (const chunk of data) {
        batch.push(chunk);
        size += chunk.length;
        if (size >= WRITE_BATCH_CHARS) {
          writeAll(fd, batch.join(''));
          batch = [];
          size = 0;
        }
      }
      if (batch.length) writeAll(fd, batch.join(''));
    }
  } catch (err) {
    closeQuietly(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeQuietly(fd);
  try {
    refuseNonRegularTarget(path); // again: something may have been put there while the data was written
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

const WRITE_BATCH_CHARS = 32 * 1024;

function writeAll(fd: number, data: string | Uint8Array): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at);
}

/**
 * A saved result file a rescore or re-report reads whole (results.jsonl, a transcript, summary.json): a regular file
 * only, opened without blocking (readFileChecked), up to 1 GiB; a missing file is an ENOENT error as readFileSync's.
 */
export function readRescoreInput(path: string): string {
  const text = readTextChecked(path, { maxBytes: 1024 * 1024 * 1024 });
  if (text === null)
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
  return text;
}
