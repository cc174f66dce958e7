// ToolHop, part 1 of 4: the selected rows are dealt over four files so `--shard` spreads them.
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { defineSuiteTests } from '../../harness/vitest/suite-tests.ts';

defineSuiteTests(toolhopSuite, { part: 1, parts: 4 });
