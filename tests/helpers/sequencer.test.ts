import { describe, expect, it } from 'vitest';
import { poolOrder, type Spec } from './sequencer.ts';

const spec = (path: string, isolate: boolean): Spec => ({
  moduleId: `/repo/${path}`,
  project: { config: { isolate } },
});
const names = (specs: Spec[]) => specs.map((s) => s.moduleId.replace('/repo/', ''));

describe('the order the pool takes test files in', () => {
  it('puts every file of an unshared project before the shared ones, so a shared worker is never stopped mid-run', () => {
    const order = poolOrder([
      spec('harness/core/a.test.ts', false),
      spec('tests/package/eval-paths.test.ts', true),
      spec('tests/e2e/resume.test.ts', false),
      spec('tests/package/vitest-ui.chromium.test.ts', true),
      spec('tests/e2e/other.test.ts', false),
      spec('tests/package/fresh-project.test.ts', true),
    ]);
    // Walk the queue: once a shared file has been taken, no unshared one may follow it.
    const firstShared = order.findIndex((s) => s.project.config.isolate === false);
    expect(order.slice(firstShared).filter((s) => s.project.config.isolate !== false)).toEqual([]);
    expect(names(order)).toEqual([
      'tests/package/fresh-project.test.ts',
      'tests/package/eval-paths.test.ts',
      'tests/package/vitest-ui.chromium.test.ts',
      'tests/e2e/resume.test.ts',
      'tests/e2e/other.test.ts',
      'harness/core/a.test.ts',
    ]);
  });

  it('within a project: the slowest files by the list, then the files that wait on processes, then the rest in the given order', () => {
    const order = poolOrder([
      spec('harness/core/b.test.ts', false),
      spec('harness/core/a.test.ts', false),
      spec('harness/sandbox/pool.test.ts', false),
      spec('tests/e2e/toolhop.test.ts', false),
      spec('tests/e2e/resume.test.ts', false),
    ]);
    expect(names(order)).toEqual([
      'tests/e2e/resume.test.ts',
      'tests/e2e/toolhop.test.ts',
      'harness/sandbox/pool.test.ts',
      'harness/core/b.test.ts',
      'harness/core/a.test.ts',
    ]);
  });
});
