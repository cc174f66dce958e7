import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The root of the tree this module was loaded from, so bundled cases are found from any working directory: the
 * repository (TypeScript sources) or the installed package's `dist/` (built JavaScript, with the runtime assets
 * copied beside it in the same layout by scripts/build.mjs).
 */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The extension of this tree's modules: `.ts` from the sources, `.js` from `dist/`. */
export const MODULE_EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

/** package.json: at the root of the sources, one level above `dist/` in the package. */
export const PACKAGE_JSON = existsSync(resolve(PACKAGE_ROOT, 'package.json'))
  ? resolve(PACKAGE_ROOT, 'package.json')
  : resolve(PACKAGE_ROOT, '..', 'package.json');

export function fromRoot(...parts: string[]): string {
  return resolve(PACKAGE_ROOT, ...parts);
}
