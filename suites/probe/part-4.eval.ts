// Probe, part 4 of 4: the selected cases are dealt over four files so `--shard` spreads them.
import { probeSuite } from '../../harness/probe/suite.ts';
import { defineSuiteTests } from '../../harness/vitest/suite-tests.ts';

defineSuiteTests(probeSuite, { part: 4, parts: 4 });
