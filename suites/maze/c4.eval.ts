// Maze, complexity C4: every selected task × mode of this complexity is one test.
import { mazeSuite } from '../../harness/maze/suite.ts';
import { defineSuiteTests } from '../../harness/vitest/suite-tests.ts';

defineSuiteTests(mazeSuite, { part: 4, parts: 4 });
