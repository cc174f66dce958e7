import { vi } from 'vitest';

// Vitest imports the eval files of a run one at a time, each after the one before has run its cases: the evals of
// the files to come are unknown while the first runs. To refuse two evals of one name (or a model list's folder that
// holds a one-model run) before any case runs, the run's other eval files are evaluated once more first, each as a
// module of its own (a query makes it one, as a part file's does), with describeEval only reporting its names.

const NAMES_ONLY = Symbol.for('toolgauge.evalNamesOnly');

type OnName = (name: string) => void;

/** While an eval file is evaluated for its names: what describeEval reports each name to (nothing else is done). */
export function namesOnly(): OnName | undefined {
  const f = (globalThis as Record<symbol, unknown>)[NAMES_ONLY];
  return typeof f === 'function' ? (f as OnName) : undefined;
}

/**
 * Evaluate the eval file `file` (an absolute path) for the names of its evals, each told to `onName`. `runId` makes
 * each run's evaluation a module of its own: a watching process's next run reads the file as it is then.
 */
export async function evalNamesOf(file: string, runId: string, onName: OnName): Promise<void> {
  const g = globalThis as Record<symbol, unknown>;
  g[NAMES_ONLY] = onName;
  try {
    // Through Vitest's module runner (the eval file may be TypeScript), whichever way this module was loaded.
    await vi.importActual(`${file.replace(/\\/g, '/')}?toolgauge-names=${encodeURIComponent(runId)}`);
  } finally {
    delete g[NAMES_ONLY];
  }
}
