import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnWorker } from './spawn-worker.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgauge-spawn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether a process has ended: gone, or a zombie nobody has reaped yet. */
function ended(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
  } catch {
    return true;
  }
}

describe('spawnWorker', () => {
  it('runs the program with exactly the environment given, and reports its exit', async () => {
    const w = spawnWorker('/bin/sh', ['-c', 'printf "%s|%s" "$ONLY" "$HOME"; exit 3'], { ONLY: 'this' });
    let out = '';
    w.child.stdout.on('data', (c: Buffer) => (out += c));
    expect(await w.exited).toEqual({ exitCode: 3, signal: null });
    expect(out).toBe('this|'); // HOME and the rest of this process's environment are not passed on
  });

  it('reports a program that cannot be started, without an exit code', async () => {
    const r = await spawnWorker(join(dir, 'no-such-program'), [], {}).exited;
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBeNull();
    expect(r.spawnError).toMatch(/could not start .*no-such-program: .*ENOENT/);
  });

  it('passes extra descriptors on as 3, 4, …', async () => {
    const file = join(dir, 'fd4');
    const fd = openSync(file, 'w');
    try {
      const w = spawnWorker('/bin/sh', ['-c', 'echo via-fd-4 >&4'], {}, [openSync('/dev/null', 'r'), fd]);
      expect((await w.exited).exitCode).toBe(0);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, 'utf8')).toBe('via-fd-4\n');
  });

  it('a worker still running when its host dies of SIGTERM is killed with it', async () => {
    const script = join(dir, 'host.mts');
    const module = fileURLToPath(new URL('./spawn-worker.ts', import.meta.url));
    writeFileSync(
      script,
      `import { spawnWorker } from ${JSON.stringify(module)};\nconst w = spawnWorker('/bin/sleep', ['60'], {});\nconsole.log(w.child.pid);\nsetInterval(() => {}, 1000);\n`,
    );
    const host = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve) =>
      host.stdout.once('data', (c: Buffer) => resolve(Number(String(c).trim()))),
    );
    expect(ended(pid)).toBe(false);
    const hostGone = new Promise((resolve) => host.once('exit', resolve));
    host.kill('SIGTERM');
    await hostGone;
    for (let i = 0; i < 100 && !ended(pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(ended(pid)).toBe(true);
  });
});
