// The CPython server's per-row children: a row's calls share one child (so its own module patches reach its later
// calls), another row never sees them, a crash or timeout ends only that call's child, and no child outlives the
// sandbox — also unconfined, where no PID namespace ends them with the server. Expected values are plain facts of
// the calls made here (what was stored, which row stored it), not outputs of the code under test.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type ToolOutcome, type ToolRef } from './index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const REACH = readFileSync(path.join(here, 'hostile', 'reach.py'), 'utf8');

// `math` is the module the runtime hands every row: an attribute set on it lives as long as the interpreter does.
const TOOLS = `
def mark(value):
    math.row_mark = value
    return value


def peek():
    try:
        return math.row_mark
    except Exception:
        return None


def crash():
    reach_sys().modules["os"]._exit(3)


def spin():
    while True:
        pass
`;

const tool = (rowId: string, name: string): ToolRef => ({ rowId, index: 99, name, sources: [REACH, TOOLS] });

function value(o: ToolOutcome): unknown {
  if (o.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(o).slice(0, 300)}`);
  return JSON.parse(o.content);
}

/** Host pids of a process and all its descendants (from /proc). */
function tree(pid: number): number[] {
  let kids: number[] = [];
  try {
    kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [pid];
  }
  return [pid, ...kids.flatMap(tree)];
}

const alive = (pid: number) => {
  try {
    // A zombie is gone for our purpose (its parent reaps it); anything else still runs or sleeps.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

async function gone(pids: number[]): Promise<number[]> {
  for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 20));
  return pids.filter(alive);
}

describe.runIf(process.platform === 'linux' && process.arch === 'x64').each([
  { confine: true, label: 'confined' },
  { confine: false, label: 'unconfined' },
])('python sandbox, one child per row ($label)', ({ confine }) => {
  let sb: Sandbox;
  beforeAll(async () => {
    // One worker: every row below is served by the same server.
    sb = createSandbox({ backend: 'python', poolSize: 1, callTimeoutMs: 10_000, confine });
    await sb.warm();
  });
  afterAll(async () => {
    await sb?.close();
  });

  it("a row's module attribute reaches its own later calls and never another row's", async () => {
    expect(value(await sb.call(tool('a', 'mark'), '{"value": "from a"}'))).toBe('from a');
    expect(value(await sb.call(tool('b', 'peek'), '{}'))).toBe(null);
    expect(value(await sb.call(tool('b', 'mark'), '{"value": "from b"}'))).toBe('from b');
    expect(value(await sb.call(tool('a', 'peek'), '{}'))).toBe('from a');
    expect(value(await sb.call(tool('c', 'peek'), '{}'))).toBe(null);
    expect(value(await sb.call(tool('b', 'peek'), '{}'))).toBe('from b');
  });

  it('a crash fails that call and the row goes on in a fresh child', async () => {
    await sb.call(tool('d', 'mark'), '{"value": "from d"}');
    await sb.call(tool('e', 'mark'), '{"value": "from e"}');
    const crashed = await sb.call(tool('d', 'crash'), '{}');
    expect(crashed.kind).toBe('crash');
    expect(crashed.kind === 'crash' && crashed.message).toMatch(/ended with no answer \(exit status 3\)/);
    expect(value(await sb.call(tool('d', 'peek'), '{}'))).toBe(null);
    // The pool replaces a worker that reported a crash, as it always has: every row on it starts over.
    expect(value(await sb.call(tool('e', 'peek'), '{}'))).toBe(null);
    expect(value(await sb.call(tool('d', 'mark'), '{"value": "again"}'))).toBe('again');
  });

  it('a timeout fails that call and the row goes on', async () => {
    await sb.call(tool('f', 'mark'), '{"value": "from f"}');
    const slow = await sb.call(tool('f', 'spin'), '{}', { timeoutMs: 300 });
    expect(slow.kind).toBe('timeout');
    // The whole worker was replaced: the row starts over, as does every other.
    expect(value(await sb.call(tool('f', 'peek'), '{}'))).toBe(null);
    expect(value(await sb.call(tool('f', 'mark'), '{"value": "again"}'))).toBe('again');
  });

  it('leaves no process behind at close, kept children included', async () => {
    const own = createSandbox({ backend: 'python', poolSize: 1, confine });
    for (const row of ['p', 'q', 'r']) await own.call(tool(row, 'mark'), '{"value": 1}');
    const [server] = own.info().workerPids;
    const pids = tree(server!);
    // The server and three rows' kept children (the spare may still be on its way).
    expect(pids.length).toBeGreaterThanOrEqual(4);
    await own.close();
    expect(await gone(pids)).toEqual([]);
  });

  it('kept children die with a server that is killed', async () => {
    const own = createSandbox({ backend: 'python', poolSize: 1, confine });
    for (const row of ['s', 't']) await own.call(tool(row, 'mark'), '{"value": 1}');
    const [server] = own.info().workerPids;
    const pids = tree(server!);
    expect(pids.length).toBeGreaterThanOrEqual(3);
    process.kill(server!, 'SIGKILL');
    expect(await gone(pids)).toEqual([]);
    await own.close();
  });
});
