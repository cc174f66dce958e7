import { describe, expect, it } from 'vitest';
import { deferredSandbox } from './deferred.ts';
import type { Sandbox } from './index.ts';

const tool = { rowId: 'r', index: 0, name: 'f', sources: ['def f():\n    return 1\n'] };

/** A sandbox that records what was asked of it. */
function recording(log: string[]): Sandbox {
  return {
    backend: 'python',
    call: async (_t, args) => (log.push(`call ${args}`), { kind: 'ok', content: '1', durationMs: 0 }),
    checkLoad: async () => (log.push('check'), { ok: true }),
    warm: async () => void log.push('warm'),
    stats: () => ({ workers: 1, starts: 1, restarts: 0, calls: 1, recycled: 0 }),
    info: () => ({ backend: 'python', confinement: ['netns'], workerPids: [42], lastReady: null, peakRssBytes: 7 }),
    close: async () => void log.push('close'),
  };
}

describe('deferredSandbox', () => {
  it('makes the sandbox once, on first use, and passes every call on', async () => {
    const log: string[] = [];
    let made = 0;
    const s = deferredSandbox('python', async () => (made++, recording(log)));
    expect(made).toBe(0);
    expect(s.stats()).toEqual({ workers: 0, starts: 0, restarts: 0, calls: 0, recycled: 0 });
    expect(s.info()).toEqual({ backend: 'python', confinement: [], workerPids: [], lastReady: null, peakRssBytes: 0 });
    await Promise.all([s.warm(), s.call(tool, '{}'), s.checkLoad(tool)]);
    expect(made).toBe(1);
    expect(log.sort()).toEqual(['call {}', 'check', 'warm']);
    expect(s.info().workerPids).toEqual([42]);
    expect(s.stats().calls).toBe(1);
    await s.close();
    expect(log).toContain('close');
  });

  it('closing one never used makes nothing; a failure to make it rejects the calls', async () => {
    let made = 0;
    await deferredSandbox('pyodide', async () => (made++, recording([]))).close();
    expect(made).toBe(0);
    const broken = deferredSandbox('pyodide', async () => {
      throw new Error('invalid sandbox option poolSize');
    });
    await expect(broken.call(tool, '{}')).rejects.toThrow('poolSize');
    await expect(broken.close()).resolves.toBeUndefined();
  });
});
