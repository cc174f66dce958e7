import type { Databases } from './index.ts';
/** The init databases in `dir` (every *.json, keyed by file stem), each validated. */
export function loadDatabases(_dir: string): Databases {
  throw new Error('not implemented yet');
}
