import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { startVitest } from 'vitest/node';
import { discardPrethread, prestartVitestThread, prethreadedPool, type Prethread } from './prethread.ts';

// V8's flags as the module under test sets them, recorded instead of set: a flag set here would be this whole test
// process's (and would stop Node's built-in code cache for every test after it).
const v8Flags = vi.hoisted(() => [] as string[]);
vi.mock('node:v8', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:v8')>()),
  setFlagsFromString: (flag: string) => {
    v8Flags.push(flag);
  },
}));

// A project of one test file that records the process and thread it ran in; Vitest runs it through the pool.
const root = mkdtempSync(join(tmpdir(), 'toolgauge-prethread-'));
writeFileSync(
  join(root, 'where.test.ts'),
  `import { writeFileSync } from 'node:fs';\nimport { threadId } from 'node:worker_threads';\nimport { test } from 'vitest';\ntest('where', () => { writeFileSync(${JSON.stringify(join(root, 'where'))}, JSON.stringify({ pid: process.pid, threadId, preloaded: globalThis.preloadedIn ?? null })); });\n`,
);
// A module the early thread loads before Vitest starts it (and one that fails to load, which must not stop it).
writeFileSync(
  join(root, 'preload.mjs'),
  "import { threadId } from 'node:worker_threads';\nglobalThis.preloadedIn = threadId;\n",
);
writeFileSync(join(root, 'broken.mjs'), 'throw new Error("broken preload");\n');
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Where {
  ok: boolean;
  pid: number;
  threadId: number;
  preloaded: number | null;
}

async function runWith(early: Prethread, projectExecArgv: string[], pool = prethreadedPool): Promise<Where> {
  rmSync(join(root, 'where'), { force: true });
  try {
    const vitest = await startVitest(
      'test',
      [],
      { root, config: false, watch: false, reporters: [] },
      { test: { include: ['where.test.ts'], pool: pool(early), execArgv: projectExecArgv, maxWorkers: 1 } },
    );
    const ok = vitest?.state.getCountOfFailedTests() === 0;
    await vitest?.close();
    return { ok, ...(JSON.parse(readFileSync(join(root, 'where'), 'utf8')) as Omit<Where, 'ok'>) };
  } finally {
    await discardPrethread(early);
  }
}

describe('a test worker thread started before Vitest', () => {
  it("becomes the run's worker when Vitest asks for exactly that thread: the tests run in it, in this process, after what it preloaded", async () => {
    const early = prestartVitestThread([
      pathToFileURL(join(root, 'broken.mjs')).href,
      pathToFileURL(join(root, 'preload.mjs')).href,
    ]);
    const id = early.worker.threadId;
    const r = await runWith(early, []);
    expect(r.ok).toBe(true);
    expect(early.adopted).toBe(true);
    expect(r.pid).toBe(process.pid); // no process of its own
    expect(r.threadId).toBe(id);
    expect(r.preloaded).toBe(id);
  });

  it('is ended, and Vitest gets a fresh thread, when Vitest asks for other node flags', async () => {
    const early = prestartVitestThread();
    const id = early.worker.threadId;
    const r = await runWith(early, ['--conditions', 'toolgauge-other']);
    expect(r.ok).toBe(true);
    expect(early.adopted).toBe(false);
    expect(r.pid).toBe(process.pid);
    expect(r.threadId).not.toBe(id);
    expect(r.preloaded).toBeNull();
    expect(early.exited).toBe(true); // not left running
  });

  it("sets the process's V8 flags only when the pool takes a thread, not while the early one loads", async () => {
    // A fresh copy of the module: whether it has set its flags is its own state.
    vi.resetModules();
    const fresh = await import('./prethread.ts');
    v8Flags.length = 0;
    const early = fresh.prestartVitestThread([pathToFileURL(join(root, 'preload.mjs')).href]);
    await new Promise((r) => early.worker.once('online', r));
    // Any flag V8 did not start with makes it refuse Node's built-in code cache for every module loaded after.
    expect(v8Flags).toEqual([]);
    const r = await runWith(early, [], fresh.prethreadedPool);
    expect(r.ok).toBe(true);
    expect(early.adopted).toBe(true);
    expect(v8Flags).toEqual(fresh.EVAL_THREAD_V8_FLAGS);

    // A fresh thread (Vitest asked for other flags) gets them too, before it starts.
    vi.resetModules();
    const again = await import('./prethread.ts');
    v8Flags.length = 0;
    const other = again.prestartVitestThread();
    expect(v8Flags).toEqual([]);
    const o = await runWith(other, ['--conditions', 'toolgauge-other'], again.prethreadedPool);
    expect(o.ok).toBe(true);
    expect(other.adopted).toBe(false);
    expect(v8Flags).toEqual(again.EVAL_THREAD_V8_FLAGS);
  });
});
