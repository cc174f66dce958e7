// Hostile rows, on both backends: each payload in hostile/ attacks the interpreter that serves it (guard
// rewrite, frame and gc walks, monkeypatching of modules and of the runtime, audit hooks, threads, forged
// protocol lines, signals, processes, huge outputs, symlink planting), and after each one the victim rows in
// hostile/victims.py, served by the same worker, must still give the right answers. The expected answers are
// plain facts (4.0 is the square root of 16), not outputs of the code under test.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confinement } from './confine.ts';
import { createSandbox, type Sandbox, type SandboxBackend, type ToolOutcome, type ToolRef } from './index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const payload = (file: string) => readFileSync(path.join(here, 'hostile', file), 'utf8');
const REACH = payload('reach.py');

/** A hostile row: the shared helpers, then the payload; index 99 makes the lookup use both sources. */
const hostile = (file: string, name: string, rowId = `hostile-${file}`): ToolRef => ({
  rowId,
  index: 99,
  name,
  sources: [REACH, payload(file)],
});

const VICTIMS: { name: string; args: Record<string, unknown>; expected: unknown }[] = [
  { name: 'v_json', args: { x: 7 }, expected: { x: 7, list: [1, 2.5, null], text: 'é' } },
  { name: 'v_datetime', args: {}, expected: ['2020-02-29T12:30:00', '2021-02-10', '04/03/2020', '2020-02-29'] },
  { name: 'v_re', args: {}, expected: ['a<1>b<22>', ['hello', 'big', 'world'], true] },
  // biome-ignore lint/suspicious/noApproximativeNumericConstant: the sandbox's round(math.pi, 5), not π
  { name: 'v_math', args: {}, expected: [4, 2, 3.14159, 2.5] },
  { name: 'v_zones', args: {}, expected: ['2020-07-01T12:00:00+02:00', '2021-01-01T09:00:00+09:00', '02.01.2020'] },
  { name: 'v_decimal_calendar', args: {}, expected: ['0.125', [3, 29], 'March', 0] },
  { name: 'v_builtins', args: {}, expected: [4, [1, 2, 3], '1.5', 42, '1,234.5', 'a-b'] },
  { name: 'v_parser', args: {}, expected: '2020-03-04T05:06:00' },
];

function okContent(o: ToolOutcome): string {
  if (o.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(o).slice(0, 500)}`);
  return o.content;
}

const okJson = (o: ToolOutcome): any => JSON.parse(okContent(o));

const isRoot = process.getuid?.() === 0;

/** Real uid and pid namespace of a host process, from /proc. */
function identity(pid: number): { uid: number; pidns: string } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { uid: Number(/^Uid:\s+(\d+)/m.exec(status)![1]), pidns: readlinkSync(`/proc/${pid}/ns/pid`) };
}

const alive = (p: ChildProcess) => p.exitCode === null && p.signalCode === null;

// Another sandbox's worker: what a hostile row must not be able to reach (a CPython one, cheap to start).
let neighbour: Sandbox;
beforeAll(async () => {
  neighbour = createSandbox({ backend: 'python', poolSize: 1 });
  await neighbour.warm();
});
afterAll(async () => {
  await neighbour?.close();
});

describe.each<SandboxBackend>(['pyodide', 'python'])('%s sandbox: hostile rows', (backend) => {
  let sb: Sandbox;
  const work = mkdtempSync(path.join(tmpdir(), `toolgauge-hostile-${backend}-`));
  const marker = path.join(work, 'escaped');

  beforeAll(async () => {
    // One worker (--concurrency 1): every hostile row and every victim after it is served by the same worker.
    // Content is cut at 100 000 characters, so that "huge" stays cheap.
    sb = createSandbox({ backend, poolSize: 1, callTimeoutMs: 20_000, memoryLimitMb: 512, maxContentChars: 100_000 });
    await sb.warm();
  });
  afterAll(async () => {
    await sb?.close();
    rmSync(work, { recursive: true, force: true });
  });

  async function victimsStillCorrect(after: string): Promise<void> {
    for (const v of VICTIMS) {
      const o = await sb.call(
        { rowId: `victim-${v.name}`, index: 99, name: v.name, sources: [payload('victims.py')] },
        JSON.stringify(v.args),
      );
      expect(o.kind === 'ok' ? JSON.parse(o.content) : o, `${v.name} after ${after}`).toEqual(v.expected);
    }
  }

  it('victim rows answer correctly on a fresh worker', async () => {
    await victimsStillCorrect('nothing');
  });

  it('cannot rewrite the guard, and what the guard stops stays stopped', async () => {
    const out = okJson(await sb.call(hostile('guard_rewrite.py', 'attack'), JSON.stringify({ marker })));
    expect(out.guard_in_sys_modules).toBe(false);
    for (const step of [
      'read_passwd',
      'os_open_passwd',
      'import_ctypes',
      'gc_objects',
      'write_tmp',
      'listdir_root',
      'add_audit_hook',
    ]) {
      expect(out[step], step).toMatch(/^refused: /);
    }
    expect(existsSync(marker)).toBe(false);
    await victimsStillCorrect('guard rewrite');
  });

  it('module and runtime monkeypatching does not reach the next row', async () => {
    const changed: string[] = okJson(await sb.call(hostile('poison.py', 'attack'), '{}'));
    // The attack itself works inside its own call: that is what must not leak.
    expect(changed).toEqual(
      expect.arrayContaining(['json.dumps', 're.sub', 'math.sqrt', 'runtime.handle', 'builtins.len']),
    );
    await victimsStillCorrect('module poisoning');
  });

  it('frame walks to the runtime change nothing for the next row', async () => {
    const o = await sb.call(hostile('frame_walk.py', 'attack'), '{}');
    expect(o.kind).not.toBe('crash');
    await victimsStillCorrect('frame walk');
  });

  it('an audit hook added by a row does not outlive it', async () => {
    await sb.call(hostile('audit_hook.py', 'attack'), '{}');
    await victimsStillCorrect('audit hook');
  });

  it('a background thread cannot keep patching modules or forge answers', async () => {
    await sb.call(hostile('thread_poison.py', 'attack'), JSON.stringify({ seconds: 3 }));
    await victimsStillCorrect('thread');
    await new Promise((r) => setTimeout(r, 300));
    await victimsStillCorrect('thread, later');
  });

  it('cannot create processes or threads', async () => {
    const out = okJson(await sb.call(hostile('fork_bomb.py', 'attack'), '{}'));
    expect(out.fork).toMatch(/^refused: /);
    expect(out.fork_exec).toMatch(/^refused: /);
    expect(out.threads).toMatch(/^refused: /);
    await victimsStillCorrect('fork bomb');
  });

  it('cannot stop or kill the processes that serve the next rows', async () => {
    const out = okJson(await sb.call(hostile('neighbours.py', 'attack'), '{}'));
    expect(out).toMatch(/^(no pidfd|signalled )/);
    await victimsStillCorrect('signals inside the namespace');
    await sb.call(hostile('neighbours.py', 'linger'), '{}');
    await victimsStillCorrect('signals after answering');
  });

  it('cuts huge output, and a row that bypasses the cut gets an error instead of a huge line', async () => {
    const big = await sb.call(hostile('huge_output.py', 'huge'), JSON.stringify({ n: 3_000_000 }));
    expect(big).toMatchObject({ kind: 'ok', truncatedFrom: 3_000_002 });
    expect(big.kind === 'ok' && big.content.length).toBe(100_000);
    // 2 MB is past the worker's line limit for 100 000 characters (12 bytes a character, plus 64 KiB).
    const bypass = await sb.call(hostile('huge_output.py', 'bypass'), JSON.stringify({ size: 2_000_000 }));
    expect(bypass.kind).toBe('crash');
    expect(bypass.kind === 'crash' && bypass.message).toMatch(/response of \d+ bytes exceeds/);
    expect(okJson(await sb.call(hostile('huge_output.py', 'flood'), '{}'))).toBe('flooded');
    const stdin = okJson(await sb.call(hostile('huge_output.py', 'read_stdin'), '{}'));
    expect(stdin).not.toMatch(/"id"/); // the protocol stream is not readable from the row
    await victimsStillCorrect('huge output');
  });

  it('cannot plant symlinks or files for a later root process', async () => {
    const cacheDir = path.join(work, 'cache');
    const out = okJson(
      await sb.call(
        hostile('symlink_plant.py', 'attack'),
        JSON.stringify({ cache_dir: cacheDir, victim: '/etc/hostname' }),
      ),
    );
    for (const step of ['symlink', 'mkdir', 'open_create']) expect(out[step], step).toMatch(/^refused: /);
    expect(existsSync(path.join(cacheDir, 'planted.snapshot'))).toBe(false);
    expect(existsSync(`${cacheDir}-planted`)).toBe(false);
  });

  describe.runIf(isRoot && process.platform === 'linux' && process.env.TOOLGAUGE_SANDBOX_CONFINE !== '0')(
    'identity (needs root and the OS confinement)',
    () => {
      let bystander: ChildProcess;
      // biome-ignore lint/suspicious/noDuplicateTestHooks: describe.runIf(…)(…) is its own scope; Biome takes it for the outer one
      beforeAll(() => {
        // Stands for any other process of the shared sandbox user of old: another checkout's worker.
        bystander = spawn(
          '/usr/bin/setpriv',
          ['--reuid=65534', '--regid=65534', '--clear-groups', '--', '/bin/sleep', '60'],
          { stdio: 'ignore' },
        );
      });
      // biome-ignore lint/suspicious/noDuplicateTestHooks: describe.runIf(…)(…) is its own scope; Biome takes it for the outer one
      afterAll(() => {
        bystander?.kill('SIGKILL');
      });

      it('gives each worker its own uid and pid namespace', () => {
        const pids = [...sb.info().workerPids, ...neighbour.info().workerPids];
        expect(pids).toHaveLength(2);
        const [a, b] = pids.map(identity);
        const host = identity(process.pid);
        for (const w of [a!, b!]) {
          expect(w.uid).not.toBe(65534);
          expect(w.uid).not.toBe(host.uid);
          expect(w.pidns).not.toBe(host.pidns);
        }
        expect(a!.uid).not.toBe(b!.uid);
        expect(a!.pidns).not.toBe(b!.pidns);
        expect(confinement().layers).toEqual(expect.arrayContaining(['netns', 'pidns', 'uid']));
      });

      it("cannot signal a bystander or another sandbox's worker", async () => {
        await new Promise((r) => setTimeout(r, 100));
        const other = neighbour.info().workerPids?.[0];
        const targets = [bystander.pid, ...(other ? [other] : [])];
        const out = okJson(await sb.call(hostile('signals.py', 'attack'), JSON.stringify({ pids: targets })));
        for (const [step, result] of Object.entries(out)) expect(result, step).toMatch(/^refused: /);
        await new Promise((r) => setTimeout(r, 200));
        expect(alive(bystander)).toBe(true);
        expect(other).toBeDefined();
        expect(existsSync(`/proc/${other}`)).toBe(true);
        expect(neighbour.info().workerPids).toContain(other);
        await victimsStillCorrect('signals');
      });
    },
  );
});
