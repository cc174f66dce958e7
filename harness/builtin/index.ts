import type { AnySuite } from '../kit/types.ts';
import { loadBuiltinSuites } from './load.ts';

/**
 * The suites toolgauge ships (every suite folder, harness/kit/suite-folders.ts), loaded and registered with the kit.
 * Importing this module is what makes them all known to the reporter, `toolgauge report`, the global setup (settings
 * and simulator responders) and the CLI.
 */
export const BUILTIN_SUITES: readonly AnySuite[] = await loadBuiltinSuites({});
