// ToolHop, part 3 of 4: the selected rows are dealt round-robin over four files so `--shard` spreads them.
import { defineToolhopSuite } from '../../harness/vitest/toolhop-suite.ts';

await defineToolhopSuite(3, 4);
