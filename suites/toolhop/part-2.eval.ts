// ToolHop, part 2 of 4: the selected rows are dealt round-robin over four files so `--shard` spreads them.
import { defineToolhopSuite } from '../../harness/vitest/toolhop-suite.ts';

await defineToolhopSuite(2, 4);
