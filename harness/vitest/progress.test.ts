import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestCase, TestModule, Vitest } from 'vitest/node';
import ToolgaugeReporter from '../../reporters/toolgauge.ts';
import { duration, ProgressMeter } from './progress.ts';

// Progress lines for a log: by count of finished cases and by a fake clock, never by waiting.

describe('ProgressMeter', () => {
  it('a line every N finished cases: done/total, failed, errors and the ETA from the pace so far', () => {
    let now = 0;
    const m = new ProgressMeter({ everyCases: 3, intervalMs: 10_000, now: () => now });
    m.planned(9);
    const lines: Array<string | null> = [];
    for (const outcome of ['passed', 'failed', 'error', 'passed', 'passed', 'passed'] as const) {
      now += 1_000;
      lines.push(m.finished(outcome));
    }
    expect(lines).toEqual([
      null,
      null,
      'progress: 3/9 cases done, 1 failed, 1 errors, ETA 6s',
      null,
      null,
      'progress: 6/9 cases done, 1 failed, 1 errors, ETA 3s',
    ]);
  });

  it('a line when the interval has passed, between cases too; none before', () => {
    let now = 0;
    const m = new ProgressMeter({ everyCases: 100, intervalMs: 10_000, now: () => now });
    m.planned(4);
    now = 9_999;
    expect(m.tick()).toBeNull();
    now = 10_000;
    expect(m.tick()).toBe('progress: 0/4 cases done, 0 failed, 0 errors, ETA ?');
    now = 12_000;
    expect(m.finished('passed')).toBeNull();
    now = 20_000;
    expect(m.tick()).toBe('progress: 1/4 cases done, 0 failed, 0 errors, ETA 1m00s');
    expect(m.tick()).toBeNull();
  });

  it('formats durations', () => {
    expect([duration(4_000), duration(75_000), duration(3_700_000)]).toEqual(['4s', '1m15s', '1h01m']);
  });
});

describe('the reporter', () => {
  afterEach(() => vi.restoreAllMocks());

  /** 25 finished cases of an eval module through the reporter's hooks; what it wrote on stderr. */
  function run(stderrIsTTY: boolean, moduleId = '/p/a.eval.ts'): string {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => (written.push(String(c)), true));
    const r = new ToolgaugeReporter({ stderrIsTTY, now: () => 0 });
    r.onInit({ config: { reporters: [] } } as unknown as Vitest);
    const cases = Array.from({ length: 30 }, (_, i) => ({
      module: { moduleId },
      result: () => ({ state: i === 0 ? 'failed' : 'passed' }),
      meta: () => ({}),
    })) as unknown as TestCase[];
    r.onTestModuleCollected({ moduleId, children: { allTests: () => cases } } as unknown as TestModule);
    for (const c of cases.slice(0, 25)) r.onTestCaseResult(c);
    void r.onTestRunEnd([], [], 'passed');
    return written.join('');
  }

  it('prints progress on a stderr that is not a terminal, after 25 cases; nothing on a terminal or for unit tests', () => {
    expect(run(false)).toBe('progress: 25/30 cases done, 1 failed, 0 errors, ETA 0s\n');
    expect(run(true)).toBe('');
    expect(run(false, '/p/a.test.ts')).toBe('');
  });
});
