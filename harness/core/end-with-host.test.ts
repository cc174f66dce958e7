// A process known only by its pid is killed with this one unless forgotten first (the host is a real process,
// ended by SIGTERM as a run's is).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

/** Whether a process has ended: gone, or a zombie nobody has reaped yet. */
function ended(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
  } catch {
    return true;
  }
}

const survivors: number[] = [];
afterAll(() => {
  for (const pid of survivors) if (!ended(pid)) process.kill(pid, 'SIGKILL');
});

describe('endPidWithHost', () => {
  it('kills a registered pid when the host dies of SIGTERM, and leaves a forgotten one alone', async () => {
    const script = join(tempDir('end-with-host'), 'host.mts');
    const module = fileURLToPath(new URL('./end-with-host.ts', import.meta.url));
    writeFileSync(
      script,
      `import { spawn } from 'node:child_process';
import { endPidWithHost } from ${JSON.stringify(module)};
const kept = spawn('/bin/sleep', ['60'], { detached: true, stdio: 'ignore' });
const forgotten = spawn('/bin/sleep', ['60'], { detached: true, stdio: 'ignore' });
endPidWithHost(kept.pid);
endPidWithHost(forgotten.pid)();
console.log(JSON.stringify([kept.pid, forgotten.pid]));
setInterval(() => {}, 1000);
`,
    );
    const host = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [kept, forgotten] = await new Promise<[number, number]>((resolve) =>
      host.stdout.once('data', (c: Buffer) => resolve(JSON.parse(String(c)))),
    );
    survivors.push(kept, forgotten);
    expect([ended(kept), ended(forgotten)]).toEqual([false, false]);
    const hostGone = new Promise((resolve) => host.once('exit', resolve));
    host.kill('SIGTERM');
    await hostGone;
    for (let i = 0; i < 100 && !ended(kept); i++) await new Promise((r) => setTimeout(r, 20));
    expect([ended(kept), ended(forgotten)]).toEqual([true, false]);
  });
});
