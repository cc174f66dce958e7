// ToolHop, part 2 of 4: the selected rows are dealt over four files so `--shard` spreads them.
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { defineSuiteTests } from '../../harness/vitest/suite-tests.ts';

defineSuiteTests(toolhopSuite, { part: 2, parts: 4 });
