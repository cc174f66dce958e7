import { randomBytes } from 'node:crypto';
import { constants, linkSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  closeQuietly,
  FileRefused,
  kindOf,
  lstatOrNull,
  mkdirNoFollow,
  openNoFollow,
  readTextChecked,
} from '../core/nofollow.ts';

/**
 * One writer per output directory. A run holds `.toolgauge-lock` in its output directory from its start to its end;
 * a second run (another run id) into the same directory is refused with one line naming the holder. The lock is per
 * run, not per process: the run's main process (the CLI, Vitest's global setup, an in-process `runSuite`) owns it,
 * and its test workers and shards, which share the run id, join it. A lock whose process is gone (dead pid, a pid
 * started after the lock, another boot) is stale and taken over.
 */
export const LOCK_FILE = '.toolgauge-lock';

export interface LockOwner {
  run_id: string;
  pid: number;
  /** The kernel's boot id: a pid from another boot means nothing. */
  boot_id: string | null;
  /** The owner's start time (clock ticks since boot, /proc/PID/stat): a reused pid has another. */
  pid_start: string | null;
  started_at: string;
}

export class DirLocked extends Error {
  override name = 'DirLocked';
  constructor(
    readonly dir: string,
    readonly holder: LockOwner,
  ) {
    super(
      `${dir} is in use by run ${holder.run_id} (pid ${holder.pid}, started ${holder.started_at}); wait for it to end or choose another --out-dir`,
    );
  }
}

function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

const bootId = (): string | null => readProc('/proc/sys/kernel/random/boot_id')?.trim() ?? null;

function pidStart(pid: number): string | null {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return null;
  // Fields after the command (which may hold spaces and parentheses): state is field 3, starttime field 22.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
}

export function ownerOf(runId: string, pid: number): LockOwner {
  return { run_id: runId, pid, boot_id: bootId(), pid_start: pidStart(pid), started_at: new Date().toISOString() };
}

/** Whether the lock's process still runs: same boot, the pid alive, and the same process (not a reused pid). */
export function holderAlive(o: LockOwner): boolean {
  const boot = bootId();
  if (o.boot_id && boot && o.boot_id !== boot) return false;
  try {
    process.kill(o.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = pidStart(o.pid);
  return !(o.pid_start && start && o.pid_start !== start);
}

function parseOwner(text: string | null): LockOwner | null {
  if (!text) return null;
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    return typeof o.run_id === 'string' && Number.isInteger(o.pid) ? (o as LockOwner) : null;
  } catch {
    return null;
  }
}

/** The most a lock holds (one JSON line of a few hundred bytes); a bigger file is not a lock. */
const MAX_LOCK_BYTES = 64 * 1024;

function readLock(path: string): { owner: LockOwner | null; text: string | null } {
  const st = lstatOrNull(path);
  if (!st) return { owner: null, text: null };
  // A link in the lock's place is never read through: it is garbage, hence stale.
  if (st.isSymbolicLink()) return { owner: null, text: null };
  // A folder, FIFO, device or socket is no lock toolgauge wrote: refused, never moved aside nor opened (a FIFO would
  // block the open forever).
  if (!st.isFile())
    throw new FileRefused(
      `${path} is ${kindOf(st)}, not a lock file toolgauge wrote: remove it, or choose another output directory`,
    );
  const text = readTextChecked(path, { root: dirname(path), maxBytes: MAX_LOCK_BYTES });
  return { owner: parseOwner(text), text };
}

/**
 * Take the directory for run `runId` owned by process `pid`, or join it when the run already holds it. Creating the
 * lock is atomic (written whole under a private name, then hard-linked into place, which fails if any lock exists).
 * Throws DirLocked when another live run holds it. Returns whether this call created the lock.
 */
export function acquireDirLock(dir: string, runId: string, pid = process.pid): boolean {
  mkdirNoFollow(dir, dir);
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 5; attempt++) {
    const tmp = join(dir, `${LOCK_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
    const fd = openNoFollow(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
    try {
      writeSync(fd, JSON.stringify(ownerOf(runId, pid)) + '\n');
    } finally {
      closeQuietly(fd);
    }
    try {
      linkSync(tmp, path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      rmSync(tmp, { force: true });
    }
    const { owner, text } = readLock(path);
    if (owner?.run_id === runId) return false;
    if (owner && holderAlive(owner)) throw new DirLocked(dir, owner);
    // Stale: move it aside under a private name, and put it back if what was moved is not what was judged stale (a
    // racing run took it over meanwhile).
    const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      renameSync(path, aside);
    } catch {
      continue;
    }
    if (readLock(aside).text !== text) {
      try {
        linkSync(aside, path);
      } catch {
        // a third run locked meanwhile; the loop reads it
      }
    }
    rmSync(aside, { force: true });
  }
  const { owner } = readLock(path);
  if (owner) throw new DirLocked(dir, owner);
  throw new Error(`${path}: cannot take the output directory's lock`);
}

/** Give the directory back if run `runId` holds it (at its end, or when it fails). */
export function releaseDirLock(dir: string, runId: string): void {
  const path = join(dir, LOCK_FILE);
  let owner: LockOwner | null;
  try {
    owner = readLock(path).owner;
  } catch (err) {
    if (err instanceof FileRefused) return; // not a lock this run wrote: nothing of ours to give back
    throw err;
  }
  if (owner?.run_id === runId) rmSync(path, { force: true });
}

/**
 * Rewrite saved output directories (`report DIR`, `rescore`) as a run of its own: hold each directory's lock, under
 * a fresh run id, while `fn` runs, so no run writes there meanwhile; a directory in use throws DirLocked before
 * anything is written. Every lock taken is given back, whatever `fn` does.
 */
export async function withDirLocks<T>(dirs: readonly string[], fn: () => T | Promise<T>): Promise<T> {
  const runId = `rewrite-${process.pid}-${randomBytes(4).toString('hex')}`;
  const held: string[] = [];
  try {
    for (const d of dirs) {
      acquireDirLock(d, runId);
      held.push(d);
    }
    return await fn();
  } finally {
    for (const d of held) releaseDirLock(d, runId);
  }
}
