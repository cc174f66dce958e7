// Probe, part 1 of 4: the selected cases are dealt round-robin over four files so `--shard` spreads them.
import { defineProbeSuite } from '../../harness/vitest/probe-suite.ts';

defineProbeSuite(1, 4);
