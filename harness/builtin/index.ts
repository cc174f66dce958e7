import { apibankSuite } from '../apibank/suite.ts';
import { bfclSuite } from '../bfcl/suite.ts';
import { registerSuite } from '../kit/registry.ts';
import type { AnySuite } from '../kit/types.ts';
import { mazeSuite } from '../maze/suite.ts';
import { probeSuite } from '../probe/suite.ts';
import { toolhopSuite } from '../toolhop/suite.ts';

/**
 * The suites toolgauge ships, registered with the kit. Importing this module is what makes them known to the
 * reporter, `toolgauge report`, the global setup (settings and simulator responders) and the CLI.
 */
export const BUILTIN_SUITES: readonly AnySuite[] = [toolhopSuite, mazeSuite, probeSuite, bfclSuite, apibankSuite];

for (const s of BUILTIN_SUITES) registerSuite(s);
