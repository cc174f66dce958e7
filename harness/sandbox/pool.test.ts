// WorkerPool with scripted stand-in workers (plain node processes speaking the protocol), so time limits,
// crashes, the memory watchdog and the sources cache can be driven exactly and quickly.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkerPool, type PoolConfig, type PoolResult } from './pool.ts';

const FAKE_WORKER = String.raw`
const rl = require('node:readline').createInterface({ input: process.stdin });
const mode = process.argv[1];
if (mode === 'fail-start') process.exit(2);
if (mode === 'not-ready') { process.stdout.write(JSON.stringify({ ready: false, error: 'no interpreter' }) + '\n'); }
else if (mode === 'never-ready') setInterval(() => {}, 1000);
else if (mode === 'slow-start') setTimeout(() => process.stdout.write(JSON.stringify({ ready: true, pid: process.pid }) + '\n'), 5000);
else process.stdout.write(JSON.stringify({ ready: true, pid: process.pid }) + '\n');
const held = [];
rl.on('line', (line) => {
  const r = JSON.parse(line);
  const reply = (o) => process.stdout.write(JSON.stringify({ id: r.id, ...o }) + '\n');
  switch (r.name) {
    case 'echo': return reply({ kind: 'ok', content: JSON.stringify({ args: r.args ?? null, sent: r.sources ? r.sources.length : null }) });
    case 'pid': return reply({ kind: 'ok', content: String(process.pid) });
    case 'huge-line': {
      // 64 MiB without a newline, in 1 MiB writes, then the answer.
      const mib = 'x'.repeat(2 ** 20);
      for (let i = 0; i < 64; i++) process.stdout.write(mib);
      return reply({ kind: 'ok', content: '"late"' });
    }
    case 'long-answer': return reply({ kind: 'ok', content: JSON.stringify('y'.repeat(Number(r.args))) });
    case 'hang': return;
    case 'die': process.exit(1);
    case 'garbage': return process.stdout.write('this is not json\n');
    case 'wrong-id': return process.stdout.write(JSON.stringify({ id: 999999, kind: 'ok', content: '1' }) + '\n');
    case 'alloc': held.push(Buffer.alloc(400 * 2 ** 20, 1)); return;
    case 'recycle': return reply({ kind: 'ok', content: '"r"', recycle: true });
  }
});
`;

let pools: WorkerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.map((p) => p.close()));
  pools = [];
});

function pool(overrides: Partial<PoolConfig> & { mode?: string } = {}): WorkerPool {
  const { mode = 'normal', ...config } = overrides;
  const p = new WorkerPool({
    size: 1,
    launch: () => ({ file: process.execPath, args: ['-e', FAKE_WORKER, mode], env: {} }),
    startTimeoutMs: 10_000,
    rssLimitBytes: 2 ** 40,
    maxLineBytes: 2 ** 20,
    ...config,
  });
  pools.push(p);
  return p;
}

const req = (name: string, sources: string[] = [], args?: string) => ({
  op: 'call' as const,
  row: 1,
  index: 0,
  name,
  sources,
  ...(args ? { args } : {}),
});

function content(r: PoolResult): unknown {
  if (r.kind !== 'response' || r.response.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(r)}`);
  return JSON.parse(r.response.content ?? 'null');
}

describe('WorkerPool', () => {
  it('a warm-up still preparing when the pool closes starts no worker (one would outlive the pool)', async () => {
    let release!: () => void;
    const preparing = new Promise<void>((res) => (release = res));
    const p = pool({ prepare: () => preparing });
    const warming = p.warm();
    await p.close();
    release();
    await expect(warming).rejects.toThrow(/closed/);
    expect(p.starts).toBe(0);
    expect(p.liveWorkers).toBe(0);
  });

  it('a worker still starting when the pool closes ends its start-up at once, not at the start-up time limit', async () => {
    const p = pool({ mode: 'slow-start', startTimeoutMs: 60_000 });
    const warming = p.warm();
    await new Promise((r) => setTimeout(r, 100));
    await p.close(); // the worker is killed: its start-up fails then, and no 60 s timer is left armed
    await expect(warming).rejects.toThrow(/exited during start-up/);
  });

  it('close kills a worker still starting instead of waiting for it (it reads its input only once ready)', async () => {
    const p = pool({ mode: 'never-ready', startTimeoutMs: 60_000 });
    const warming = p.warm();
    warming.catch(() => undefined);
    while (p.starts === 0) await new Promise((r) => setImmediate(r));
    // With the clock stopped, a close that left the worker to the one-second straggler timer would never return.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await p.close();
    } finally {
      vi.useRealTimers();
    }
    await expect(warming).rejects.toThrow(/exited during start-up/);
  });

  it('starts lazily, passes requests and answers through', async () => {
    const p = pool();
    expect(p.liveWorkers).toBe(0);
    expect(content(await p.run(req('echo', ['src'], '{"a":1}'), 5000))).toEqual({ args: '{"a":1}', sent: 1 });
    expect(p.starts).toBe(1);
    expect(p.liveWorkers).toBe(1);
  });

  it('sends the sources with every request (workers keep nothing between calls)', async () => {
    const p = pool();
    expect(content(await p.run(req('echo', ['a', 'b']), 5000))).toEqual({ args: null, sent: 2 });
    expect(content(await p.run(req('echo', ['a', 'b']), 5000))).toEqual({ args: null, sent: 2 });
  });

  it('holds at most the line bound of a worker that never ends its line, and replaces it', async () => {
    const p = pool({ maxLineBytes: 2 ** 20 });
    const r = await p.run(req('huge-line'), 20_000);
    expect(r).toMatchObject({
      kind: 'crash',
      message: expect.stringMatching(/more than 1048576 bytes exceeds the sandbox limit/),
    });
    expect(p.peakLineBytes).toBeLessThanOrEqual(2 * 2 ** 20); // the bound plus at most one pipe read
    expect(p.restarts).toBe(1);
    expect(content(await p.run(req('long-answer', [], String(2 ** 19)), 5000))).toHaveLength(2 ** 19);
    const long = await p.run(req('long-answer', [], String(2 ** 20)), 5000);
    expect(long.kind).toBe('crash');
  });

  it('refuses a request longer than the limit without sending it', async () => {
    const p = pool();
    const r = await p.run(req('echo', ['x'.repeat(40 * 2 ** 20)]), 5000);
    expect(r).toMatchObject({ kind: 'crash', message: expect.stringMatching(/exceeds the sandbox limit/) });
    expect(content(await p.run(req('echo', ['a']), 5000))).toEqual({ args: null, sent: 1 });
  });

  it('kills a call over its time limit and replaces the worker', async () => {
    const p = pool();
    const first = content(await p.run(req('pid'), 5000));
    const r = await p.run(req('hang'), 300);
    expect(r.kind).toBe('timeout');
    expect(p.restarts).toBe(1);
    const second = content(await p.run(req('pid'), 5000));
    expect(second).not.toBe(first);
  });

  it('keeps serving on one worker while another is stuck', async () => {
    const p = pool({ size: 2 });
    await p.warm();
    const stuck = p.run(req('hang'), 1500);
    const quick = await Promise.all([1, 2, 3].map(() => p.run(req('pid'), 5000)));
    expect(quick.every((r) => r.kind === 'response')).toBe(true);
    expect((await stuck).kind).toBe('timeout');
  });

  it('reports a worker that dies, garbles or mislabels its answer as a crash and replaces it', async () => {
    const p = pool();
    for (const name of ['die', 'garbage', 'wrong-id']) {
      const r = await p.run(req(name), 5000);
      expect(r.kind, name).toBe('crash');
    }
    expect(p.restarts).toBe(3);
    expect(content(await p.run(req('echo'), 5000))).toEqual({ args: null, sent: 0 });
  });

  it('kills a worker whose resident memory passes the bound', async () => {
    const p = pool({ rssLimitBytes: 200 * 2 ** 20 });
    const r = await p.run(req('alloc'), 10_000);
    expect(r.kind).toBe('memory');
    expect(p.peakRssBytes).toBeGreaterThan(200 * 2 ** 20);
    expect(p.restarts).toBe(1);
  });

  it('replaces a worker that asks to be recycled, after answering', async () => {
    const p = pool();
    const before = content(await p.run(req('pid'), 5000));
    expect(content(await p.run(req('recycle'), 5000))).toBe('r');
    expect(content(await p.run(req('pid'), 5000))).not.toBe(before);
  });

  it('reports workers that fail to start', async () => {
    const r1 = await pool({ mode: 'fail-start' }).run(req('echo'), 5000);
    expect(r1).toMatchObject({ kind: 'crash', message: expect.stringMatching(/exited during start-up/) });
    const r2 = await pool({ mode: 'not-ready' }).run(req('echo'), 5000);
    expect(r2).toMatchObject({ kind: 'crash', message: expect.stringMatching(/failed to start: no interpreter/) });
  });

  it('settles queued calls on close and refuses new ones', async () => {
    const p = pool();
    const running = p.run(req('hang'), 60_000);
    const queued = p.run(req('echo'), 60_000);
    await new Promise((r) => setTimeout(r, 200));
    await p.close();
    expect((await queued).kind).toBe('crash');
    expect((await running).kind).toBe('crash');
    expect(() => p.run(req('echo'), 1000)).toThrow(/closed/);
  });
});
