import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startVitest } from 'vitest/node';
import { discardPrefork, preforkedPool, preforkMismatch, preforkVitestWorker, type Prefork } from './prefork.ts';

// A project of one test file that records the pid of the process it ran in; Vitest runs it through the preforked pool.
const root = mkdtempSync(join(tmpdir(), 'toolgauge-prefork-'));
writeFileSync(
  join(root, 'pid.test.ts'),
  `import { writeFileSync } from 'node:fs';\nimport { test } from 'vitest';\ntest('pid', () => { writeFileSync(${JSON.stringify(join(root, 'pid'))}, JSON.stringify({ pid: process.pid, preloaded: globalThis.preloadedBy ?? null })); });\n`,
);
// A module the early worker loads before Vitest starts it (and one that fails to load, which must not stop it).
writeFileSync(join(root, 'preload.mjs'), 'globalThis.preloadedBy = process.pid;\n');
writeFileSync(join(root, 'broken.mjs'), 'throw new Error("broken preload");\n');
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function runWith(
  early: Prefork,
  projectExecArgv: string[],
): Promise<{ ok: boolean; pid: number; preloaded: number | null }> {
  rmSync(join(root, 'pid'), { force: true });
  try {
    const vitest = await startVitest(
      'test',
      [],
      { root, config: false, watch: false, reporters: [] },
      { test: { include: ['pid.test.ts'], pool: preforkedPool(early), execArgv: projectExecArgv, maxWorkers: 1 } },
    );
    const ok = vitest?.state.getCountOfFailedTests() === 0;
    await vitest?.close();
    return {
      ok,
      ...(JSON.parse(readFileSync(join(root, 'pid'), 'utf8')) as { pid: number; preloaded: number | null }),
    };
  } finally {
    discardPrefork(early);
  }
}

function exited(p: Prefork): Promise<void> {
  return new Promise((resolve) =>
    p.child.exitCode !== null || p.child.signalCode !== null ? resolve() : p.child.once('exit', () => resolve()),
  );
}

describe('a test worker started before Vitest', () => {
  it("becomes the run's worker when Vitest asks for exactly that process: the tests run in it, after what it preloaded", async () => {
    const early = preforkVitestWorker(
      ['--max-semi-space-size=2'],
      [pathToFileURL(join(root, 'broken.mjs')).href, pathToFileURL(join(root, 'preload.mjs')).href],
    );
    const r = await runWith(early, ['--max-semi-space-size=2']);
    expect(r.ok).toBe(true);
    expect(early.adopted).toBe(true);
    expect(r.pid).toBe(early.child.pid);
    expect(r.preloaded).toBe(early.child.pid);
  });

  it('is ended, and Vitest gets a fresh worker, when Vitest asks for other node flags', async () => {
    const early = preforkVitestWorker(['--max-semi-space-size=4']);
    expect(
      preforkMismatch(early, {
        entrypoint: early.entrypoint,
        execArgv: [...early.execArgv.slice(0, -1), '--max-semi-space-size=2'],
        env: early.env,
      }),
    ).toMatch(/^node flags /);
    const r = await runWith(early, ['--max-semi-space-size=2']);
    expect(r.ok).toBe(true);
    expect(early.adopted).toBe(false);
    expect(r.pid).not.toBe(early.child.pid);
    expect(r.preloaded).toBeNull();
    await exited(early); // not left running
  });

  it('is not taken for another environment', () => {
    const early = preforkVitestWorker([]);
    try {
      expect(preforkMismatch(early, { entrypoint: early.entrypoint, execArgv: early.execArgv, env: early.env })).toBe(
        '',
      );
      expect(
        preforkMismatch(early, {
          entrypoint: early.entrypoint,
          execArgv: early.execArgv,
          env: { ...early.env, EXTRA: '1' },
        }),
      ).toBe('environment');
      expect(
        preforkMismatch(early, { entrypoint: `${early.entrypoint}.other`, execArgv: early.execArgv, env: early.env }),
      ).toMatch(/^worker program /);
    } finally {
      discardPrefork(early);
    }
  });
});
