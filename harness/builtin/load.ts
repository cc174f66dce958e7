import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MODULE_EXT } from '../core/paths.ts';
import { registerSuite } from '../kit/registry.ts';
import { isBuiltIn, suiteFolders, type SuiteFolder } from '../kit/suite-folders.ts';
import type { AnySuite } from '../kit/types.ts';

/**
 * A suite folder's definition (its `suite.ts`'s default export), loaded only when a run needs it: a `toolgauge
 * toolhop` run does not load (or transform) the probe's templates and parsers, BFCL's checker or Maze's tasks in
 * Vitest's main process. The specifier is a template over the folder's name, so the CLI bundle holds every
 * `harness/<suite>/suite.ts` (esbuild's glob import) and the built package rewrites its extension (tsc). A folder
 * outside this tree (a test's throwaway suite) loads by its path.
 */
export async function loadSuiteDefinition(folder: Pick<SuiteFolder, 'name' | 'dir'>): Promise<AnySuite> {
  const mod = isBuiltIn(folder)
    ? await import(`../${folder.name}/suite.ts`)
    : await import(/* @vite-ignore */ pathToFileURL(join(folder.dir, `suite${MODULE_EXT}`)).href);
  const def = (mod as { default?: AnySuite }).default;
  if (!def || def.name !== folder.name)
    throw new Error(`${folder.dir}/suite: its default export is not the suite '${folder.name}'`);
  return def;
}

/** The built-in suites' names, in their folders' order. */
export const BUILTIN_SUITE_NAMES: readonly string[] = suiteFolders().map((f) => f.name);

/**
 * Loads and registers the suites a run uses: those named in TOOLGAUGE_SUITES (the CLI sets it to its command's
 * suite), or all of them (plain `vitest run`, `--merge-reports`). Names it does not know are skipped: a user's suite
 * registers itself. `folders` is the registry (default: this tree's suite folders).
 */
export async function loadBuiltinSuites(
  env: NodeJS.ProcessEnv,
  folders: readonly SuiteFolder[] = suiteFolders(),
): Promise<AnySuite[]> {
  const wanted =
    env.TOOLGAUGE_SUITES === undefined ? null : new Set(env.TOOLGAUGE_SUITES.split(',').map((s) => s.trim()));
  const defs = await Promise.all(folders.filter((f) => !wanted || wanted.has(f.name)).map(loadSuiteDefinition));
  for (const d of defs) registerSuite(d);
  return defs;
}

/**
 * The definition modules of the named suites, as an early test worker may load them (harness/vitest/prefork.ts): each
 * by its source path (the CLI bundle's key) and, in the built package, its built file.
 */
export function suiteModules(
  names: readonly string[],
  folders: readonly SuiteFolder[] = suiteFolders(),
): Array<{ source: string; built: string | null }> {
  return folders
    .filter((f) => names.includes(f.name))
    .map((f) => ({
      source: `harness/${f.name}/suite.ts`,
      built: MODULE_EXT === '.js' ? join(f.dir, 'suite.js') : null,
    }));
}
