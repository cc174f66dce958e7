// Maze, complexity C3: every selected task × mode of this complexity is one test.
import { mazeSuite } from '../../harness/maze/suite.ts';
import { defineSuiteTests } from '../../harness/vitest/suite-tests.ts';

defineSuiteTests(mazeSuite, { part: 3, parts: 4 });
