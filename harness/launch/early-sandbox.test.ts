import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { planRun, type RunPlan } from '../kit/plan.ts';
import { startSandboxEarly } from './early-sandbox.ts';
import { openRun } from './open-run.ts';

// Who closes a sandbox started before the run opened: the run, once its launcher adopted it; otherwise whoever
// started it. The pool is a stand-in that counts what is done to it (starting real interpreters proves nothing here).
const made = vi.hoisted(() => [] as Array<{ warmed: number; closed: number }>);
vi.mock('../sandbox/index.ts', () => ({
  createSandbox: () => {
    const record = { warmed: 0, closed: 0 };
    made.push(record);
    return {
      backend: 'pyodide',
      warm: async () => void record.warmed++,
      close: async () => void record.closed++,
      stats: () => ({ workers: 0, starts: 0, restarts: 0, calls: 0, recycled: 0 }),
      info: () => ({ backend: 'pyodide', confinement: [], workerPids: [], lastReady: null, peakRssBytes: 0 }),
    };
  },
}));

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
beforeEach(() => {
  made.length = 0;
});

function sandboxedPlan(): RunPlan {
  const dir = mkdtempSync(join(tmpdir(), 'tg-early-sbx-'));
  dirs.push(dir);
  return { ...planRun({ TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_OUT_DIR: dir }, []), prewarmSandbox: true };
}

describe('startSandboxEarly', () => {
  it('starts nothing for a run whose suites call no sandboxed tool', () => {
    expect(startSandboxEarly(planRun({ TOOLGAUGE_MODEL: 'sim:oracle' }, []))).toBeUndefined();
    expect(made).toHaveLength(0);
  });

  it('closes its sandbox when the launcher never took it (a run refused before the sandbox step)', async () => {
    const early = startSandboxEarly(sandboxedPlan())!;
    await early.close();
    expect(made).toEqual([{ warmed: 1, closed: 1 }]);
    expect(early.take()).toBeNull();
    await early.close();
    expect(made[0]!.closed).toBe(1);
  });

  it('the launcher serves the sandbox started early, makes no second one, and the run closes it once', async () => {
    const plan = sandboxedPlan();
    const early = startSandboxEarly(plan)!;
    const opened = await openRun(plan, {
      command: 'toolgauge demo',
      suites: [],
      outDir: plan.run.outDir!,
      serveSandbox: true,
      sandbox: early,
    });
    try {
      expect(opened.plan.sandboxSocket?.path).toBeTruthy();
      await early.close(); // the starter's close after adoption leaves it to the run
      expect(made).toEqual([{ warmed: 1, closed: 0 }]);
    } finally {
      await opened.close();
    }
    expect(made).toEqual([{ warmed: 1, closed: 1 }]);
  });
});
