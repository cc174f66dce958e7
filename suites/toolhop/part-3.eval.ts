// ToolHop, part 3 of 4: the selected rows are dealt over four files so `--shard` spreads them.
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { defineSuiteTests } from '../../harness/vitest/suite-tests.ts';

defineSuiteTests(toolhopSuite, { part: 3, parts: 4 });
