import { registerSuite } from '../kit/registry.ts';
import type { AnySuite } from '../kit/types.ts';

/**
 * The built-in suites by name, each loaded only when a run needs it: a `toolgauge toolhop` run does not load (or
 * transform) the probe's templates and parsers, BFCL's checker or Maze's tasks in Vitest's main process.
 */
const LOADERS: Record<string, () => Promise<AnySuite>> = {
  toolhop: async () => (await import('../toolhop/suite.ts')).toolhopSuite as AnySuite,
  maze: async () => (await import('../maze/suite.ts')).mazeSuite as AnySuite,
  probe: async () => (await import('../probe/suite.ts')).probeSuite as AnySuite,
  bfcl: async () => (await import('../bfcl/suite.ts')).bfclSuite as AnySuite,
  apibank: async () => (await import('../apibank/suite.ts')).apibankSuite as AnySuite,
};

export const BUILTIN_SUITE_NAMES: readonly string[] = Object.keys(LOADERS);

/**
 * Loads and registers the built-in suites a run uses: those named in TOOLGAUGE_SUITES (the CLI sets it to its
 * command's suite), or all of them (plain `vitest run`, `--merge-reports`). Names it does not know are skipped:
 * a user's suite registers itself.
 */
export async function loadBuiltinSuites(env: NodeJS.ProcessEnv): Promise<AnySuite[]> {
  const names = env.TOOLGAUGE_SUITES === undefined ? BUILTIN_SUITE_NAMES : env.TOOLGAUGE_SUITES.split(',').map((s) => s.trim()).filter((s) => s in LOADERS);
  const defs = await Promise.all(names.map((n) => LOADERS[n]!()));
  for (const d of defs) registerSuite(d);
  return defs;
}
