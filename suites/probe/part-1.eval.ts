// Probe, part 1 of 4: the selected cases are dealt over four files so `--shard` spreads them.
import { probeSuite } from '../../harness/probe/suite.ts';
import { defineSuiteTests } from '../../harness/vitest/suite-tests.ts';

defineSuiteTests(probeSuite, { part: 1, parts: 4 });
