// BFCL, part 2 of 4: the selected cases are dealt over four files (multi-turn cases first) so `--shard` spreads them.
import { bfclSuite } from '../../harness/bfcl/suite.ts';
import { defineSuiteTests } from '../../harness/vitest/suite-tests.ts';

defineSuiteTests(bfclSuite, { part: 2, parts: 4 });
