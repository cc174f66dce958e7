import { existsSync, readFileSync } from 'node:fs';

// No Vitest import: the scale bench (a plain tsx script) counts a journal's lines with it too.

/** How many non-blank lines a file has (0 when it does not exist yet): a journal's progress while its run goes on. */
export function countLines(path: string): number {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length
    : 0;
}
