import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Starts the files that wait on other processes (end-to-end runs of the CLI, the sandbox, the probe over HTTP)
 * first, so the short CPU-bound unit files fill the gaps instead of a long file running alone at the end. Within
 * each group Vitest's own order stands (slowest first once it has timings; larger files first on a fresh checkout).
 */
const LONG = /[\\/](tests[\\/](e2e|probe)|harness[\\/]sandbox)[\\/]/;

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((f) => LONG.test(f.moduleId)), ...sorted.filter((f) => !LONG.test(f.moduleId))];
  }
}
