import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDirLock, DirLocked, LOCK_FILE, releaseDirLock } from './lock.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'tg-lock-'));
  dirs.push(d);
  return d;
}
/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
const lockOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { run_id: string; pid: number };

describe('the output directory lock', () => {
  it('is taken by the first run, joined by the same run (its workers), refused to another live run, and released by its run only', () => {
    const dir = tmp();
    expect(acquireDirLock(dir, 'run-a')).toBe(true);
    expect(acquireDirLock(dir, 'run-a', 12345)).toBe(false);
    expect(() => acquireDirLock(dir, 'run-b')).toThrow(DirLocked);
    expect(() => acquireDirLock(dir, 'run-b')).toThrow(`is in use by run run-a (pid ${process.pid},`);
    releaseDirLock(dir, 'run-b');
    expect(lockOf(dir).run_id).toBe('run-a');
    releaseDirLock(dir, 'run-a');
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    expect(acquireDirLock(dir, 'run-b')).toBe(true);
  });

  it('a lock whose process is gone, from a pid reused by another process, from another boot, or unreadable, is taken over', () => {
    const stale = [
      { run_id: 'dead', pid: deadPid(), boot_id: null, pid_start: null, started_at: 'x' },
      { run_id: 'reused', pid: process.pid, boot_id: null, pid_start: '1', started_at: 'x' },
      { run_id: 'old-boot', pid: process.pid, boot_id: 'another-boot', pid_start: null, started_at: 'x' },
    ];
    for (const s of stale) {
      const dir = tmp();
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify(s));
      expect(acquireDirLock(dir, 'new'), s.run_id).toBe(true);
      expect(lockOf(dir)).toMatchObject({ run_id: 'new', pid: process.pid });
    }
    const garbage = tmp();
    writeFileSync(join(garbage, LOCK_FILE), '{"run_');
    expect(acquireDirLock(garbage, 'new')).toBe(true);
  });

  it('a link planted as the lock is never written through', () => {
    const dir = tmp();
    const victim = join(tmp(), 'victim');
    writeFileSync(victim, 'keep');
    symlinkSync(victim, join(dir, LOCK_FILE));
    expect(acquireDirLock(dir, 'new')).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(lockOf(dir).run_id).toBe('new');
  });
});
