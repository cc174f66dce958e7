import type { AnySuite } from './types.ts';

/**
 * The open suite registry: suites register themselves (built-in ones through harness/builtin, user evals through
 * describeEval in the worker). The reporter, `toolgauge report` and the simulator look suites up by name; a suite
 * the main process has never seen still gets the generic summary, report and gate.
 */
const suites = new Map<string, AnySuite>();

export function registerSuite(def: AnySuite): void {
  suites.set(def.name, def);
}

export function suiteNamed(name: string): AnySuite | undefined {
  return suites.get(name);
}

export function registeredSuites(): AnySuite[] {
  return [...suites.values()];
}
