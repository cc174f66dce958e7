// API-Bank, part 3 of 4: the selected tasks are dealt over four files so `--shard` spreads them.
import { apibankSuite } from '../../harness/apibank/suite.ts';
import { defineSuiteTests } from '../../harness/vitest/suite-tests.ts';

defineSuiteTests(apibankSuite, { part: 3, parts: 4 });
