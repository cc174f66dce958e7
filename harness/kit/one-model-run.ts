import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { JOURNAL } from './journal.ts';
import { MARKER } from './outdir.ts';

/** What marks a one-model run's folder, which a several-model run does not share (kit/outdir.ts, kit/journal.ts). */
const RUN_FILES = [MARKER, JOURNAL, 'summary.json'];

/**
 * A model list (`--model a,b`) writes a folder per model, and their comparison, into each eval's folder: a folder
 * that holds a one-model run (its marker, journal or summary) is refused in one line naming it (exit 2), as the
 * models' folders and comparison would land beside that run's files. `what`: how the line names the folder.
 */
export function refuseOneModelRun(dir: string, what: string): void {
  const found = RUN_FILES.find((f) => existsSync(join(dir, f)));
  if (found)
    throw new UsageError(
      `toolgauge eval: ${what} holds a one-model run (${found}); a model list writes a folder per model into a folder of its own`,
    );
}
