import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository / package root, so bundled cases are found from any working directory. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function fromRoot(...parts: string[]): string {
  return resolve(PACKAGE_ROOT, ...parts);
}
