import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type ToolOutcome, type ToolRef } from './index.ts';
import { connectSandbox, serveSandbox, type SandboxServer } from './remote.ts';

// The CPython backend: what is checked is the hand-over over the socket, not the interpreter.
const opened: Array<Sandbox | SandboxServer> = [];
afterEach(async () => {
  for (const x of opened.splice(0).reverse()) await x.close();
});

async function served() {
  const local = createSandbox({ backend: 'python', poolSize: 1 });
  opened.push(local);
  const server = await serveSandbox(local);
  opened.push(server);
  const remote = connectSandbox(server, 'python');
  opened.push(remote);
  return { local, server, remote };
}

const SRC = 'def add(a, b):\n    return a + b\n\ndef boom(x):\n    raise ValueError(f"bad {x}")\n';
const tool = (name: string, rowId: string | number, index = 0): ToolRef => ({ rowId, index, name, sources: [SRC] });
/** An outcome without its timing (which differs between any two calls). */
const shape = (o: ToolOutcome) => {
  const { durationMs: _d, ...rest } = o;
  return rest;
};

describe('a sandbox served over a socket', () => {
  it('answers every kind of call as the pool itself does, concurrently, with the pool’s stats', async () => {
    const { local, remote } = await served();
    const calls: Array<[ToolRef, string]> = [
      [tool('add', 1), '{"a": 2, "b": 3}'],
      [tool('add', 2), '{"a": "x", "b": "y"}'],
      [tool('boom', 3), '{"x": 7}'],
      [tool('missing', 4), '{}'],
      [tool('add', 5), '{"a": 1}'],
    ];
    const viaSocket = await Promise.all(calls.map(([t, a]) => remote.call(t, a)));
    const direct = [];
    for (const [t, a] of calls) direct.push(await local.call(t, a));
    expect(viaSocket.map(shape)).toEqual(direct.map(shape));
    expect(viaSocket.map((o) => o.kind)).toEqual(['ok', 'ok', 'exception', 'not_found', 'exception']);
    expect(await remote.checkLoad(tool('add', 1))).toEqual(await local.checkLoad(tool('add', 1)));
    await remote.warm();
    // The client's stats and info are the pool's (every call through either side), as of the last answer.
    expect(remote.stats()).toEqual(local.stats());
    expect(remote.stats().calls).toBe(2 * calls.length);
    expect(remote.info().backend).toBe('python');
    expect(remote.info().workerPids).toEqual(local.info().workerPids);
  });

  it('a lost server ends the pending and the later calls as crashes that say so', async () => {
    const { server, remote } = await served();
    const slow = { rowId: 's', index: 0, name: 'f', sources: ['def f():\n    return sum(range(200_000_000))\n'] };
    const pending = remote.call(slow, '{}');
    await new Promise((r) => setTimeout(r, 200));
    await server.close();
    const lost = await pending;
    expect(lost.kind).toBe('crash');
    expect(lost.kind === 'crash' && lost.message).toMatch(/sandbox server .* (closed the connection|ECONNRESET)/);
    const later = await remote.call(tool('add', 1), '{"a": 1, "b": 2}');
    expect(later.kind).toBe('crash');
  });

  it('a malformed request gets an error answer and the connection keeps serving', async () => {
    const { server } = await served();
    const socket = createConnection(server.path);
    const lines: string[] = [];
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      buffered += d;
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      lines.push(...parts);
    });
    socket.write(`${JSON.stringify({ hello: server.token })}\n`);
    socket.write('not json\n');
    socket.write(
      `${JSON.stringify({ id: 1, op: 'call', tool: { rowId: 1, index: 'zero', name: 'add', sources: [SRC] }, args: '{}' })}\n`,
    );
    socket.write(`${JSON.stringify({ id: 2, op: 'call', tool: tool('add', 1), args: '{"a": 1, "b": 1}' })}\n`);
    while (lines.length < 3) await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    const answers = lines.map((l) => JSON.parse(l) as { id: number; ok: boolean; error?: string; value?: ToolOutcome });
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get(-1)?.ok).toBe(false);
    expect(answers.filter((a) => !a.ok)).toHaveLength(2);
    expect(byId.get(2)).toMatchObject({ ok: true, value: { kind: 'ok', content: '2' } });
  });

  it('refuses a per-call timeout beyond 2^31-1 ms (Node would fire it after 1 ms) instead of timing the call out', async () => {
    const { remote } = await served();
    const refused = await remote.call(tool('add', 1), '{"a": 1, "b": 1}', { timeoutMs: 2 ** 31 });
    expect(refused.kind).toBe('crash');
    expect(refused.kind !== 'ok' && refused.message).toMatch(/timeoutMs.*2147483647/s);
    expect(shape(await remote.call(tool('add', 1), '{"a": 1, "b": 1}', { timeoutMs: 2 ** 31 - 1 }))).toEqual({
      kind: 'ok',
      content: '2',
    });
  });
});

/** What a raw connection receives before it is closed, or has a whole line when `line`, or `ms` pass. */
function rawExchange(
  path: string,
  lines: string[],
  opts: { line?: boolean; ms?: number } = {},
): Promise<{ received: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let received = '';
    let closed = false;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      received += d;
      if (opts.line && received.includes('\n')) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      clearTimeout(timer);
      resolve({ received, closed });
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ received, closed });
    }, opts.ms ?? 1500);
    socket.write(lines.map((l) => `${l}\n`).join(''));
  });
}

/** Run `fn` with TMPDIR set to `dir` (os.tmpdir() reads it on every call). */
async function withTmpdir<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
}

describe('who can reach the served sandbox', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const scratch = () => {
    const d = mkdtempSync(join(tmpdir(), 'tg-remote-test-'));
    made.push(d);
    return d;
  };

  it('a connection without the run token gets no answer and is closed; the pool is never called', async () => {
    const { local, server } = await served();
    const request = JSON.stringify({ id: 1, op: 'call', tool: tool('add', 1), args: '{"a": 1, "b": 2}' });
    const wrong = JSON.stringify({ hello: 'f'.repeat(64) });
    const right = JSON.stringify({ hello: server.token });
    for (const first of [
      [request],
      [wrong],
      [JSON.stringify({ hello: server.token.slice(0, -1) })],
      ['{}'],
      [wrong, right],
      ['x'.repeat(100_000)],
    ]) {
      const r = await rawExchange(server.path, [...first, request]);
      expect(r.received, first.join(' + ').slice(0, 80)).toBe('');
      expect(r.closed, first.join(' + ').slice(0, 80)).toBe(true);
    }
    expect(local.stats().calls).toBe(0);
    // With the token, the same request is answered.
    const ok = await rawExchange(server.path, [right, request], { line: true, ms: 60_000 });
    expect(ok.received).toMatch(/"ok":true/);
  });

  it('the socket is 0600 in a 0700 folder of this user, and both are gone after close', async () => {
    const { server } = await served();
    const st = lstatSync(server.path);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
    const folder = lstatSync(dirname(server.path));
    expect(folder.mode & 0o777).toBe(0o700);
    expect(folder.uid).toBe(process.getuid!());
    await server.close();
    expect(existsSync(dirname(server.path))).toBe(false);
  });

  it('with a TMPDIR too long for a socket path, the socket is still where it says, short and private, and is removed', async () => {
    const long = join(scratch(), 'x'.repeat(60), 'y'.repeat(60));
    mkdirSync(long, { recursive: true });
    const local = createSandbox({ backend: 'python', poolSize: 1 });
    opened.push(local);
    const server = await withTmpdir(long, () => serveSandbox(local));
    opened.push(server);
    // Linux takes 107 bytes (sun_path is 108 with its NUL).
    expect(Buffer.byteLength(server.path)).toBeLessThanOrEqual(107);
    expect(lstatSync(server.path).isSocket()).toBe(true);
    expect(statSync(dirname(server.path)).mode & 0o777).toBe(0o700);
    // Nothing landed in the long folder or beside it (where a cut path would put the socket).
    expect(readdirSync(long)).toEqual([]);
    const remote = connectSandbox(server, 'python');
    opened.push(remote);
    expect(await remote.call(tool('add', 1), '{"a": 2, "b": 2}')).toMatchObject({ kind: 'ok', content: '4' });
    await server.close();
    expect(existsSync(dirname(server.path))).toBe(false);
  });

  it('refuses when no candidate folder gives a short enough socket path', async () => {
    const long = join(scratch(), 'z'.repeat(110));
    mkdirSync(long, { recursive: true });
    const local = createSandbox({ backend: 'python', poolSize: 1 });
    opened.push(local);
    await expect(serveSandbox(local, { bases: [long] })).rejects.toThrow(/exceed 107 bytes/);
    expect(readdirSync(long)).toEqual([]);
  });

  it("a dead run's tg-sbx folder is removed at the next start; a live run's folder stays", async () => {
    const base = scratch();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    expect(deadPid).toBeGreaterThan(0);
    const staleDir = join(base, 'tg-sbx-stale1');
    const liveDir = join(base, 'tg-sbx-live01');
    const freshUnmarked = join(base, 'tg-sbx-fresh1');
    // Folders of an older version have no pid file: a socket nobody listens on marks them dead.
    const oldDead = join(base, 'tg-sbx-olddd1');
    const oldLive = join(base, 'tg-sbx-oldlv1');
    for (const d of [staleDir, liveDir, freshUnmarked, oldDead, oldLive]) mkdirSync(d, { mode: 0o700 });
    writeFileSync(join(staleDir, 'pid'), String(deadPid));
    writeFileSync(join(staleDir, 's'), '');
    writeFileSync(join(liveDir, 'pid'), String(process.pid));
    // A process that listened and was gone without closing leaves its socket file behind.
    spawnSync(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(join(oldDead, 's'))}, () => process.exit(0))`,
    ]);
    expect(lstatSync(join(oldDead, 's')).isSocket()).toBe(true);
    const listener = createServer((c) => c.destroy());
    await new Promise<void>((r) => listener.listen(join(oldLive, 's'), r));
    const local = createSandbox({ backend: 'python', poolSize: 1 });
    opened.push(local);
    const server = await withTmpdir(base, () => serveSandbox(local));
    opened.push(server);
    expect(dirname(dirname(server.path))).toBe(base);
    await new Promise<void>((r) => listener.close(() => r()));
    expect(existsSync(staleDir)).toBe(false);
    expect(existsSync(oldDead)).toBe(false);
    expect(existsSync(liveDir)).toBe(true);
    expect(existsSync(oldLive)).toBe(true);
    // A folder with neither a pid nor a socket (being made) stays until it is a day old.
    expect(existsSync(freshUnmarked)).toBe(true);
  });
});
