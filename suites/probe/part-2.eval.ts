// Probe, part 2 of 4: the selected cases are dealt over four files so `--shard` spreads them.
import { probeSuite } from '../../harness/probe/suite.ts';
import { defineSuiteTests } from '../../harness/vitest/suite-tests.ts';

defineSuiteTests(probeSuite, { part: 2, parts: 4 });
