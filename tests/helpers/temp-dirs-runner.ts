import { type RunnerTestSuite, TestRunner } from 'vitest';
import { removeTempDirs } from './temp-dirs.ts';

/**
 * Vitest's test runner, removing the folders tempDir made when each test file ends (after its afterAll hooks): the
 * unit and package projects' `runner`. A setup file's afterAll did the same, but Vitest imports a setup file again
 * before every test file, a round trip to the main process for each of the suite's 350 files; the runner is loaded
 * once per worker.
 */
export default class TempDirsRunner extends TestRunner {
  override async onAfterRunSuite(suite: RunnerTestSuite): Promise<void> {
    await super.onAfterRunSuite(suite);
    if (suite.file === suite) removeTempDirs();
  }
}
