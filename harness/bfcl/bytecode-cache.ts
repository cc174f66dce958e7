// The host's folder of bytecode for BFCL's class files. BFCL ships none, and the multi-turn worker is confined (a
// uid of its own) and writes no file, so each worker compiled the class files again (about 80 CPU-ms of its start;
// docs/benchmarks.md, "BFCL: `toolgauge bfcl rescore` beside BFCL's own evaluator"). The host reads the folder and
// sends its files to the worker as it starts; the worker uses one only where CPython's own checks pass (this
// interpreter's magic number, the source's size and modification time), and hands back what it had to compile,
// which the host writes here for the next worker.
//
// Bytecode is code the worker runs, so the folder is trusted only as the CLI's bundle cache is: a folder (not a
// link) owned by this user with mode 700. Anything else, or any error, means no cache: the worker compiles.
import { createHash } from 'node:crypto';
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';

/** `<module>.<cache tag>.pyc`, as the worker names them: one file name, nothing else. */
const PYC_NAME = /^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_-]+\.pyc$/;
/** A class file's bytecode is some tens of KiB; anything far larger is not one. */
const MAX_PYC_BYTES = 8 * 2 ** 20;

export const bytecodeAnswer = z.record(z.string().regex(PYC_NAME), z.string().max(2 * MAX_PYC_BYTES)).optional();

/** The default root: `$XDG_CACHE_HOME/toolgauge/bfcl-bytecode` or `~/.cache/toolgauge/bfcl-bytecode`. */
export function defaultBytecodeRoot(xdgCacheHome: string | undefined): string {
  return join(xdgCacheHome || join(homedir(), '.cache'), 'toolgauge', 'bfcl-bytecode');
}

/** Why `dir` cannot hold code this user runs, or null when it can. */
function untrusted(dir: string): string | null {
  const s = lstatSync(dir);
  if (!s.isDirectory()) return 'is not a folder';
  if (typeof process.getuid === 'function' && s.uid !== process.getuid()) return `is owned by uid ${s.uid}`;
  if ((s.mode & 0o077) !== 0) return `has mode ${(s.mode & 0o777).toString(8)}, not 700`;
  return null;
}

/**
 * The folder for one class folder's bytecode under `root` (one per real path of the class folder), created if
 * needed; undefined when it cannot be made or trusted.
 */
export function bytecodeFolder(root: string, sourceDir: string): string | undefined {
  try {
    const key = createHash('sha256').update(realpathSync(sourceDir)).digest('hex').slice(0, 24);
    const dir = join(root, key);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Every folder from the root down: a writable parent could swap the folder for another.
    for (const d of [root, dir]) if (untrusted(d)) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/** Writes the bytecode the worker compiled (file name → base64), each file atomically; a failure only loses the cache. */
export function keepBytecode(dir: string, files: Record<string, string>): void {
  for (const [name, base64] of Object.entries(files)) {
    if (!PYC_NAME.test(name)) continue;
    const data = Buffer.from(base64, 'base64');
    if (data.length > MAX_PYC_BYTES) continue;
    const tmp = join(dir, `.${name}.${process.pid}.tmp`);
    try {
      const fd = openSync(tmp, 'wx', 0o600);
      try {
        writeSync(fd, data);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, join(dir, name));
    } catch {
      rmSync(tmp, { force: true });
    }
  }
}

/** The folder's bytecode files (file name → base64) for the worker; none when it cannot be read. */
export function readBytecode(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  try {
    for (const name of readdirSync(dir)) {
      if (!PYC_NAME.test(name)) continue;
      const data = readFileSync(join(dir, name));
      if (data.length <= MAX_PYC_BYTES) files[name] = data.toString('base64');
    }
  } catch {
    return {};
  }
  return files;
}
