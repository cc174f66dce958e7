import { isAbsolute, relative } from 'node:path';
import { MODULE_EXT, PACKAGE_ROOT } from '../core/paths.ts';

/**
 * Whether an eval run from `root` keeps Vite's transformed modules on disk between runs (Vitest's fsModuleCache).
 * Installed, toolgauge is built JavaScript under node_modules, which the worker loads natively (Vite transforms only
 * the eval files): no cache, which would only hold a few eval files. From the sources, the worker loads ~200
 * TypeScript modules through Vite (most of a CPU-second a run): a root inside the repository caches them in its
 * node_modules, as the repository's own runs do. A root elsewhere does not: Vitest would create node_modules/ there.
 */
export function cachesSourceModules(root: string): boolean {
  const rel = relative(PACKAGE_ROOT, root);
  return MODULE_EXT === '.ts' && !rel.startsWith('..') && !isAbsolute(rel);
}
