// Command lines for the CPython worker pool (`--sandbox python`): one long-lived interpreter per slot
// running runtime/cpython_server.py, which forks a child per row (kept for the row's later calls where the children
// can be walled off from one another, else one per call). Weaker isolation than pyodide (see README.md), but numpy
// works.
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { confined } from './confine.ts';
import { PYTHON_WORKER_ENV } from './python-env.ts';
import { SNAPSHOT_PREIMPORTS } from './packages.ts';
import { RUNTIME_DIR } from './pyodide-backend.ts';
import type { WorkerLaunch } from './pool.ts';

export const SERVER_FILE = path.join(RUNTIME_DIR, 'cpython_server.py');

/** The interpreter: option, then TOOLGAUGE_PYTHON, then Debian's /usr/bin/python3 (which has the packages). */
export function resolvePythonPath(
  option: string | undefined,
  env: NodeJS.ProcessEnv | Record<string, string | undefined>,
): string {
  return option || env.TOOLGAUGE_PYTHON || '/usr/bin/python3';
}

/** Data the Python packages read besides sys.path (tz database, babel's CLDR data behind its symlinks). */
function dataRoots(): string[] {
  const out: string[] = [];
  for (const p of ['/usr/share/zoneinfo', '/usr/share/python-babel-localedata']) {
    try {
      out.push(realpathSync(p));
    } catch {
      // absent: the package that needs it fails on its own
    }
  }
  return out;
}

/**
 * Rows whose child a CPython server keeps between their calls (the pool's `rowMemory` too): with 16 rows in flight,
 * a row's next call finds its child unless the run has more rows in flight than this.
 */
export const ROW_CHILDREN = 16;

export function pythonLaunch(
  pythonPath: string,
  memoryLimitMb: number,
  maxResponseBytes: number,
  confine = true,
  rowChildren = ROW_CHILDREN,
): WorkerLaunch {
  const config = {
    runtimeDir: RUNTIME_DIR,
    memoryLimitMb,
    maxResponseBytes,
    readRoots: [RUNTIME_DIR, ...dataRoots()],
    // Imported once by the server, so that each call's fork starts warm (as the pyodide snapshot does).
    preimport: SNAPSHOT_PREIMPORTS,
    rowChildren,
  };
  const { file, args, forks } = confined(pythonPath, ['-s', '-B', SERVER_FILE, JSON.stringify(config)], {
    enabled: confine,
  });
  return {
    file,
    args,
    forked: forks,
    // PYTHON_WORKER_ENV and nothing else (extendEnv: false), with one thread for numerical libraries.
    env: {
      ...PYTHON_WORKER_ENV,
      OPENBLAS_NUM_THREADS: '1',
      OMP_NUM_THREADS: '1',
    },
  };
}
