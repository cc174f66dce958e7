import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The folders tempDir made, removed when the test file that made them ends (tests/helpers/temp-dirs-runner.ts, the
// test runner of every project: it runs after each file). An `afterAll` registered where this module is imported ran
// for the first file of a worker only: with `isolate: false` the module is evaluated once per worker, and the
// folders of every later file stayed in the system's temporary folder.
const made: string[] = [];

/** A fresh temporary directory, removed after the test file. */
export function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), `tg-${prefix}-`));
  made.push(d);
  return d;
}

/** Remove every folder tempDir made so far (the files of a worker run one after another). */
export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}
