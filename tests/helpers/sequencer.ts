import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the longest files first, so the short CPU-bound unit files fill the gaps instead of a long file running
 * alone at the end. Vitest orders by the last run's timings when it has them; a fresh checkout has none (it would
 * go by file size), so the files measured slowest on 2 cores lead in this order, then the other files that wait on
 * other processes (end-to-end runs, the sandbox, the probe over HTTP), then the rest in Vitest's order.
 *
 * Before all of them, the files of projects whose workers are not shared (the package project: `isolate` is not
 * false). Vitest's pool keeps a shared worker for the next file only when the next file in the queue is of the same
 * project; a package file next in the queue stops it, and the worker started after it loads every module again
 * (docs/benchmarks.md, "The test suite's own cost"). Queued first, the package files take the workers that have
 * not started yet and follow one another, and the unit project's workers are never stopped mid-run.
 */
const SLOWEST = [
  'tests/package/fresh-project.test.ts',
  'tests/package/fresh-mcp.test.ts',
  'tests/package/fresh-features.test.ts',
  'tests/e2e/resume.test.ts',
  'tests/e2e/toolhop.test.ts',
  'tests/e2e/gguf.test.ts',
  'tests/e2e/stats.test.ts',
  'tests/e2e/regression.test.ts',
  'tests/e2e/kit.test.ts',
  'harness/sandbox/sandbox.test.ts',
  'tests/e2e/maze.test.ts',
  'tests/probe/calibration.test.ts',
  'tests/probe/cli.test.ts',
  'harness/sandbox/realdata.test.ts',
  'harness/stats/bootstrap.test.ts',
  'harness/engine/host.test.ts',
  'tests/eval/eval-cli.test.ts',
  'tests/eval/eval-models.test.ts',
  'tests/e2e/describe-eval-modes.test.ts',
  'harness/serve/hostile-engine.test.ts',
];
const WAITING = /[\\/](tests[\\/](e2e|probe|package|eval)|harness[\\/](sandbox|engine|serve))[\\/]/;

/** The part of a TestSpecification the order reads. */
export interface Spec {
  moduleId: string;
  project: { config: { isolate: boolean } };
}

function rank(f: Spec): number {
  const path = f.moduleId.replaceAll('\\', '/');
  const i = SLOWEST.findIndex((s) => path.endsWith(`/${s}`));
  return i >= 0 ? i : WAITING.test(f.moduleId) ? SLOWEST.length : SLOWEST.length + 1;
}

/** `sorted` (Vitest's order) as the pool should take it: unshared projects' files first, then by rank. */
export function poolOrder<T extends Spec>(sorted: T[]): T[] {
  const shared = (f: Spec) => (f.project.config.isolate === false ? 1 : 0);
  // Array.prototype.sort is stable: within a rank, Vitest's order stands.
  return sorted.sort((a, b) => shared(a) - shared(b) || rank(a) - rank(b));
}

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return poolOrder(await super.sort(files));
  }
}
