import { createConnection } from 'node:net';
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
  const remote = connectSandbox(server.path, 'python');
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
    socket.write('not json\n');
    socket.write(`${JSON.stringify({ id: 1, op: 'call', tool: { rowId: 1, index: 'zero', name: 'add', sources: [SRC] }, args: '{}' })}\n`);
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
    expect(shape(await remote.call(tool('add', 1), '{"a": 1, "b": 1}', { timeoutMs: 2 ** 31 - 1 }))).toEqual({ kind: 'ok', content: '2' });
  });
});
