import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startVitest } from 'vitest/node';
import { discardPrethread, prestartVitestThread, prethreadedPool, type Prethread } from './prethread.ts';

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

async function runWith(early: Prethread, projectExecArgv: string[]): Promise<Where> {
  rmSync(join(root, 'where'), { force: true });
  try {
    const vitest = await startVitest(
      'test',
      [],
      { root, config: false, watch: false, reporters: [] },
      { test: { include: ['where.test.ts'], pool: prethreadedPool(early), execArgv: projectExecArgv, maxWorkers: 1 } },
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
});
